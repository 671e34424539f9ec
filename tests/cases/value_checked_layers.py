"""Layers that validate their inputs' values and raise, as production model code often does."""
import torch
from torch import nn
from torch.nn import functional as F


class CheckedProbabilities(nn.Module):
    """A mixture head that insists on valid probabilities and finite logits."""

    def __init__(self, dim=16, components=4):
        super().__init__()
        self.logits = nn.Linear(dim, components)

    def forward(self, x, prior):
        if (prior < 0).any():
            raise ValueError("prior probabilities must be non-negative")
        logits = self.logits(x)
        if not torch.isfinite(logits).all():
            raise RuntimeError("non-finite mixture logits")
        probs = F.softmax(logits, dim=-1) * prior
        if probs.sum() <= 0:
            raise ValueError("the mixture has no mass")
        return probs / probs.sum(-1, keepdim=True)


class BoundedRegressor(nn.Module):
    """A regressor whose inputs must lie in a calibrated range."""

    def __init__(self, dim=8, bound=100.0):
        super().__init__()
        self.fc = nn.Linear(dim, 1)
        self.bound = bound

    def forward(self, x):
        if x.abs().max() > self.bound:
            raise ValueError("input outside the calibrated range")
        y = self.fc(x)
        if torch.isnan(y).any():
            raise FloatingPointError("regressor produced NaN")
        return y


CASES = [
    ("CheckedProbabilities", CheckedProbabilities, lambda: (torch.randn(3, 16), torch.rand(4))),
    ("BoundedRegressor", BoundedRegressor, lambda: (torch.randn(5, 8),)),
]
