"""Constructs dynamo 2.13 breaks on and 2.14 traces: a deep copy of a named tuple, reading a
ContextVar, asking torch.mps whether it is available, and max over a range with a key that
reads a constant list. Beside each, a near miss that traces in every version."""
import contextvars
import copy
from collections import namedtuple

import torch
import torch.nn as nn

Pair = namedtuple("Pair", ["first", "second"])
SCALE = contextvars.ContextVar("scale", default=2.0)
OFFSET = 0.5


class CopiedPair(nn.Module):
    def forward(self, x):
        pair = Pair(x, x * 2)
        copied = copy.deepcopy(pair)
        return copied.first + copied.second


class CopiedDict(nn.Module):
    def forward(self, x):
        settings = copy.deepcopy({"scale": 3.0, "shift": 1.0})
        return x * settings["scale"] + settings["shift"]


class ContextScaled(nn.Module):
    def forward(self, x):
        return x * SCALE.get()


class ConstantScaled(nn.Module):
    def forward(self, x):
        return x + OFFSET


class MpsFallback(nn.Module):
    def forward(self, x):
        if torch.mps.is_available():
            x = x * 2
        return x.relu()


class CudaFallback(nn.Module):
    def forward(self, x):
        if torch.cuda.is_available():
            x = x * 2
        return x.relu()


class PriorityPick(nn.Module):
    def __init__(self):
        super().__init__()
        self.priority = [3, 1, 4, 2]
        self.heads = nn.ModuleList(nn.Linear(4, 4) for _ in self.priority)

    def forward(self, x):
        best = max(range(len(self.priority)), key=lambda i: self.priority[i])
        return self.heads[best](x)


class PriorityMax(nn.Module):
    def __init__(self):
        super().__init__()
        self.priority = [3, 1, 4, 2]

    def forward(self, x):
        return x * max(self.priority)


CASES = [
    ("CopiedPair", CopiedPair, lambda: (torch.randn(2, 4),)),
    ("CopiedDict", CopiedDict, lambda: (torch.randn(2, 4),)),
    ("ContextScaled", ContextScaled, lambda: (torch.randn(2, 4),)),
    ("ConstantScaled", ConstantScaled, lambda: (torch.randn(2, 4),)),
    ("MpsFallback", MpsFallback, lambda: (torch.randn(2, 4),)),
    ("CudaFallback", CudaFallback, lambda: (torch.randn(2, 4),)),
    ("PriorityPick", PriorityPick, lambda: (torch.randn(2, 4),)),
    ("PriorityMax", PriorityMax, lambda: (torch.randn(2, 4),)),
]
