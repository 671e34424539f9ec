"""Corruption layer with ImageNet-C style severity levels, drawn per batch."""
import random

import torch
from torch import nn


class GaussianCorruption(nn.Module):
    def __init__(self, base_sigma=0.04, max_severity=5, p_blur=0.3):
        super().__init__()
        self.base_sigma = base_sigma
        self.max_severity = max_severity
        self.blur = nn.AvgPool2d(3, stride=1, padding=1)
        self.p_blur = p_blur

    def forward(self, images):
        severity = random.randint(1, self.max_severity)
        noisy = images + torch.randn_like(images) * severity * self.base_sigma
        mix = random.uniform(0.0, self.p_blur)
        return ((1 - mix) * noisy + mix * self.blur(noisy)).clamp(0, 1)


CASES = [("GaussianCorruption", GaussianCorruption, lambda: (torch.rand(2, 3, 8, 8),))]
