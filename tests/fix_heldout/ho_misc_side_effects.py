"""Side effects and Python-only calls in forward (held out from fix tuning)."""
import random
import time
import warnings

import torch
import torch.nn as nn


class TimedBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        start = time.perf_counter()
        y = self.fc(x)
        self.elapsed = time.perf_counter() - start
        return y


class RandomDrop(nn.Module):
    def forward(self, x):
        if random.random() < 0.5:
            return x
        return x * 0.0


class WarnOnLarge(nn.Module):
    def forward(self, x):
        if x.shape[0] > 2:
            warnings.warn("large batch")
        return x * 2


class AssertPositive(nn.Module):
    def forward(self, x):
        s = x.exp().sum()
        assert s.item() > 0, "sum must be positive"
        return x / s


CASES = [
    ("TimedBlock", TimedBlock, lambda: (torch.randn(3, 8),)),
    ("RandomDrop", RandomDrop, lambda: (torch.randn(3, 8),)),
    ("WarnOnLarge", WarnOnLarge, lambda: (torch.randn(3, 8),)),
    ("AssertPositive", AssertPositive, lambda: (torch.randn(3, 8),)),
]
