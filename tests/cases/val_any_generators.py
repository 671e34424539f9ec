"""Checks written with Python's any/all over generators of tensors and with allclose: each
item is a tensor tested for truth, or a bool made from tensor data; the tensor forms trace."""
import torch
import torch.nn as nn


class AnyRowActive(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if any(row.sum() > 0 for row in x):
            return torch.relu(x)
        return x


class CloseToIdentity(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.allclose(self.fc.weight, torch.eye(4)):
            return x
        return self.fc(x)


class TensorAnyRows(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        active = (x.sum(-1) > 0).any()
        return torch.where(active, torch.relu(x), x)


CASES = [
    ("AnyRowActive", AnyRowActive, lambda: (torch.randn(3, 4),)),
    ("CloseToIdentity", CloseToIdentity, lambda: (torch.randn(2, 4),)),
    ("TensorAnyRows", TensorAnyRows, lambda: (torch.randn(3, 4),)),
]
