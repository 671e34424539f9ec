"""Models built of layers imported from reach_star_exports.py, which only star-imports them:
the break of Gate is reported where the forward calls it. Near misses: Sign is the clean one
of reach_star_calm.py (the last star import), Scale has no break."""
import torch
import torch.nn as nn

from .reach_star_exports import Gate, Scale, Sign


class GatedNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = Gate()

    def forward(self, x):
        return self.gate(x) * 2


class SignNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.sign = Sign()

    def forward(self, x):
        return self.sign(x) + 1


class ScaledNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = Scale()

    def forward(self, x):
        return self.scale(x) - 1


CASES = [
    ("GatedNet", GatedNet, lambda: (torch.randn(4, 3),)),
    ("SignNet", SignNet, lambda: (torch.randn(4, 3),)),
    ("ScaledNet", ScaledNet, lambda: (torch.randn(4, 3),)),
]
