"""Attention variants whose temperature or bias strength is read from a parameter as a float."""
import math

import torch
from torch import nn


class LearnedTemperatureAttention(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.qk = nn.Linear(dim, 2 * dim)
        self.log_tau = nn.Parameter(torch.tensor(math.log(2.0)))

    def forward(self, x):
        q, k = self.qk(x).chunk(2, dim=-1)
        tau = self.log_tau.exp().item()
        scores = q @ k.transpose(-2, -1) / tau
        return scores.softmax(-1) @ x


class DistanceBiasedAttention(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.qk = nn.Linear(dim, 2 * dim)
        self.bias_strength = nn.Parameter(torch.tensor(0.1))

    def forward(self, x):
        n = x.shape[1]
        q, k = self.qk(x).chunk(2, dim=-1)
        pos = torch.arange(n, dtype=x.dtype)
        distance = (pos[None, :] - pos[:, None]).abs()
        strength = float(self.bias_strength)
        peak = x.abs().amax().item()
        scores = q @ k.transpose(-2, -1) - strength * distance
        return scores.softmax(-1) @ (x / peak)


CASES = [
    ("LearnedTemperatureAttention", LearnedTemperatureAttention, lambda: (torch.randn(2, 5, 8),)),
    ("DistanceBiasedAttention", DistanceBiasedAttention, lambda: (torch.randn(2, 5, 8),)),
]
