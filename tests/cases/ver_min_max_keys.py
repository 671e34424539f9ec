"""min()/max() with key=: torch 2.13 breaks when the key is a Python function it has to call
(GB0193), and folds a builtin or a list's bound method over constants; from 2.14 only a key
computing a tensor breaks (GB5687)."""
import torch
import torch.nn as nn


def _weight(i):
    return (i * 7) % 5


class DefKey(nn.Module):
    def forward(self, x):
        return x * max(range(4), key=_weight)


class BuiltinKey(nn.Module):
    def forward(self, x):
        return x * min([-3.0, 2.0, 1.5], key=abs)


class BoundMethodKey(nn.Module):
    def __init__(self):
        super().__init__()
        self.order = [2, 0, 1]

    def forward(self, x):
        return x * max(range(3), key=self.order.__getitem__)


class TensorDefKey(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 4)

    def forward(self, x):
        return min([self.a(x), self.b(x)], key=torch.norm) + 1


CASES = [
    ("DefKey", DefKey, lambda: (torch.randn(2, 4),)),
    ("BuiltinKey", BuiltinKey, lambda: (torch.randn(2, 4),)),
    ("BoundMethodKey", BoundMethodKey, lambda: (torch.randn(2, 4),)),
    ("TensorDefKey", TensorDefKey, lambda: (torch.randn(2, 4),)),
]
