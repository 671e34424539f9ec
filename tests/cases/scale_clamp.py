"""Normalisation utilities that clamp scales with Python's min/max."""
import torch
import torch.nn as nn


class RMSScale(nn.Module):
    def __init__(self, dim=16, floor=1e-3):
        super().__init__()
        self.floor = floor
        self.gain = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        rms = x.pow(2).mean().sqrt()
        scale = max(rms, self.floor)
        return x / scale * self.gain


class SymmetricRange(nn.Module):
    """Per-tensor quantisation range: the larger of |min| and |max|, and the top-k outliers."""

    def __init__(self, outliers=4):
        super().__init__()
        self.outliers = outliers

    def forward(self, x):
        lo, hi = x.min().abs(), x.max().abs()
        bound = max(lo, hi)
        k = min(self.outliers, x.numel())
        top = x.flatten().abs().topk(k).values
        return (x / bound).clamp(-1, 1), top


CASES = [
    ("RMSScale", RMSScale, lambda: (torch.randn(4, 16),)),
    ("SymmetricRange", SymmetricRange, lambda: (torch.randn(3, 6),)),
]
