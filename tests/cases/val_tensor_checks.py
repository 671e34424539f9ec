"""Input validation inside forward: all()/any() over a tensor, torch.equal and a `raise` on a
tensor condition need the tensor's values; the shape-only checks trace."""
import torch
import torch.nn as nn


class AllPositiveCheck(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scale = x.abs().sum(-1)
        if not all(scale > 0):
            scale = scale + 1.0
        return self.fc(x) / scale.unsqueeze(-1)


class RaiseOnNan(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        if torch.isnan(h).any():
            raise ValueError("NaN in projection")
        return h


class SymmetricCheck(nn.Module):
    def forward(self, a: torch.Tensor) -> torch.Tensor:
        if torch.equal(a, a.transpose(0, 1)):
            return a
        return (a + a.transpose(0, 1)) / 2


class RaiseOnShape(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.shape[-1] != 8:
            raise ValueError(f"expected 8 features, got {x.shape[-1]}")
        return self.fc(x)


CASES = [
    ("AllPositiveCheck", AllPositiveCheck, lambda: (torch.randn(2, 8),)),
    ("RaiseOnNan", RaiseOnNan, lambda: (torch.randn(2, 8),)),
    ("SymmetricCheck", SymmetricCheck, lambda: (torch.randn(3, 3),)),
    ("RaiseOnShape", RaiseOnShape, lambda: (torch.randn(2, 8),)),
]
