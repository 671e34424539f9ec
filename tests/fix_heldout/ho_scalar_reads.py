"""Python numbers read from tensors (held out from fix tuning)."""
import math

import torch
import torch.nn as nn


class TemperatureScale(nn.Module):
    def __init__(self):
        super().__init__()
        self.log_t = nn.Parameter(torch.zeros(()))

    def forward(self, logits):
        t = self.log_t.exp().item()
        return logits / max(t, 0.05)


class NormalizedByPeak(nn.Module):
    def forward(self, x):
        peak = float(x.abs().amax())
        return x / (peak + 1e-5)


class DynamicCrop(nn.Module):
    def forward(self, x, lengths):
        n = int(lengths.max())
        return x[:, :n].sum(-1)


class Splitter(nn.Module):
    def forward(self, x, sizes):
        parts = torch.split(x, sizes.tolist(), dim=0)
        return torch.stack([p.sum(0) for p in parts])


class LogSpace(nn.Module):
    def forward(self, x):
        s = x.std()
        return x * math.log(s + 1.0)


CASES = [
    ("TemperatureScale", TemperatureScale, lambda: (torch.randn(3, 4),)),
    ("NormalizedByPeak", NormalizedByPeak, lambda: (torch.randn(3, 4),)),
    ("DynamicCrop", DynamicCrop, lambda: (torch.randn(2, 7), torch.tensor([3, 5]))),
    ("Splitter", Splitter, lambda: (torch.randn(6, 3), torch.tensor([2, 4]))),
    ("LogSpace", LogSpace, lambda: (torch.randn(3, 4),)),
]
