"""try/except in forward: a KeyError fallback on a dict of buffers, an AttributeError fallback
for an optional submodule, and a try around a tensor-to-number conversion."""
import torch
import torch.nn as nn


class ScaleTable(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.scales = {"small": 0.5, "large": 2.0}

    def forward(self, x: torch.Tensor, size: str = "medium") -> torch.Tensor:
        try:
            scale = self.scales[size]
        except KeyError:
            scale = 1.0
        return self.fc(x) * scale


class OptionalAdapter(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        try:
            h = h + self.adapter(h)
        except AttributeError:
            pass
        return h


class SafeRatio(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        try:
            ratio = h.max().item() / h.min().abs().item()
        except ZeroDivisionError:
            ratio = 1.0
        return h * min(ratio, 10.0)


CASES = [
    ("ScaleTable", ScaleTable, lambda: (torch.randn(2, 8),)),
    ("OptionalAdapter", OptionalAdapter, lambda: (torch.randn(2, 8),)),
    ("SafeRatio", SafeRatio, lambda: (torch.randn(2, 8),)),
]
