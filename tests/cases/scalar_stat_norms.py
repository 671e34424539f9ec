"""Normalisers that read batch statistics back as Python floats, as older research code does."""
import torch
from torch import nn


class BatchStandardizer(nn.Module):
    """Standardises a batch with its own mean and standard deviation."""

    def forward(self, x):
        mu = x.mean().item()
        sigma = x.std().item()
        return (x - mu) / (sigma + 1e-5)


class MinMaxScaler(nn.Module):
    """Rescales features to [0, 1] with the batch range."""

    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.proj(x)
        lo = h.min().item()
        hi = h.max().item()
        return (h - lo) / (hi - lo + 1e-6)


class FakeQuantizer(nn.Module):
    """Symmetric 8-bit fake quantisation with a per-tensor scale from the absolute maximum."""

    def forward(self, x):
        scale = x.abs().max().item() / 127
        q = torch.clamp(torch.round(x / scale), -128, 127)
        return q * scale


CASES = [
    ("BatchStandardizer", BatchStandardizer, lambda: (torch.randn(4, 8) * 2 + 1,)),
    ("MinMaxScaler", MinMaxScaler, lambda: (torch.randn(5, 8),)),
    ("FakeQuantizer", FakeQuantizer, lambda: (torch.randn(3, 6),)),
]
