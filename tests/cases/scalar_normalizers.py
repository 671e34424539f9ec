"""Normalisation and temperature layers that read statistics back as Python numbers."""
import torch
from torch import nn


class MaxAbsScaler(nn.Module):
    """Scales activations by their largest magnitude, read with .item() as in quantisation code."""

    def __init__(self, dim=16):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.fc(x)
        peak = h.abs().max().item()
        h = h / (peak + 1e-6)
        center = h.mean().item()
        return h - center


class TemperatureSoftmax(nn.Module):
    """Softmax with a learnable temperature read back with float()."""

    def __init__(self, dim=16, classes=6):
        super().__init__()
        self.head = nn.Linear(dim, classes)
        self.log_temperature = nn.Parameter(torch.tensor(0.3))

    def forward(self, x):
        temperature = float(self.log_temperature.exp())
        logits = self.head(x) / temperature
        return logits.softmax(-1)


class ThresholdedMask(nn.Module):
    """Keeps scores above half of the batch maximum."""

    def __init__(self, dim=16):
        super().__init__()
        self.score = nn.Linear(dim, 1)

    def forward(self, x):
        scores = self.score(x).squeeze(-1)
        top = scores.max().item()
        keep = scores > 0.5 * top
        low = scores.min().item()
        spread = (scores - low) / 2
        return keep, spread * x.mean(-1)


CASES = [
    ("MaxAbsScaler", MaxAbsScaler, lambda: (torch.randn(4, 16),)),
    ("TemperatureSoftmax", TemperatureSoftmax, lambda: (torch.randn(4, 16),)),
    ("ThresholdedMask", ThresholdedMask, lambda: (torch.randn(5, 16),)),
]
