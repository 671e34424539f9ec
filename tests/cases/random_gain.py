"""Waveform augmentation: random gain and additive noise applied on the fly."""
import random

import torch
from torch import nn


class RandomGain(nn.Module):
    def __init__(self, min_db=-6, max_db=6, noise=0.01):
        super().__init__()
        self.min_db, self.max_db = min_db, max_db
        self.noise = noise

    def forward(self, wave):
        gain_db = random.randint(self.min_db, self.max_db)
        jitter = random.uniform(0.5, 1.0)
        wave = wave * 10 ** (gain_db / 20)
        return wave + self.noise * jitter * torch.randn_like(wave)


CASES = [("RandomGain", RandomGain, lambda: (torch.randn(2, 100),))]
