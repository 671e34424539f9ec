"""Data-dependent branches in a gated block (held out from fix tuning)."""
import torch
import torch.nn as nn


class GatedResidual(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.fc(x)
        if h.mean() > 0:
            out = h * 0.5 + x
        else:
            out = x - h * 0.5
        return out


class ClampedEnergy(nn.Module):
    def forward(self, x):
        energy = x.pow(2).sum()
        if energy > 10.0:
            return x / energy.sqrt()
        return x


class ThreeWay(nn.Module):
    def forward(self, x):
        m = x.mean()
        if m > 0.5:
            y = x * 2
        elif m < -0.5:
            y = x * -2
        else:
            y = x
        return y


class CheckedInput(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        if torch.isnan(x).any():
            raise ValueError("NaN in input")
        return self.fc(x)


CASES = [
    ("GatedResidual", GatedResidual, lambda: (torch.randn(3, 8),)),
    ("ClampedEnergy", ClampedEnergy, lambda: (torch.randn(3, 8),)),
    ("ThreeWay", ThreeWay, lambda: (torch.randn(3, 8),)),
    ("CheckedInput", CheckedInput, lambda: (torch.randn(3, 8),)),
]
