"""Augmentations that draw from numpy.random inside forward: which draws dynamo traces through
torch._numpy, and which it breaks on (and with which GB id)."""
import numpy as np
import torch
import torch.nn as nn


class PermutedRows(nn.Module):
    """np.random.permutation has no torch._numpy counterpart (GB0294)."""

    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        order = torch.as_tensor(np.random.permutation(x.shape[0]))
        return self.fc(x[order])


class UniformGain(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        return self.fc(x) * np.random.uniform(0.5, 1.5)


class GaussianJitter(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        noise = torch.as_tensor(np.random.randn(*x.shape)).float()
        return self.fc(x + noise)


class RandomChoiceScale(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        return self.fc(x) * np.random.choice([0.5, 1.0, 2.0])


CASES = [
    ("PermutedRows", PermutedRows, lambda: (torch.randn(4, 8),)),
    ("UniformGain", UniformGain, lambda: (torch.randn(4, 8),)),
    ("GaussianJitter", GaussianJitter, lambda: (torch.randn(4, 8),)),
    ("RandomChoiceScale", RandomChoiceScale, lambda: (torch.randn(4, 8),)),
]
