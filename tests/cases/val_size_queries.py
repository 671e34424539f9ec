"""Layers that read a tensor's size facts: numel(), dim(), ndim and element_size() are static
ints under dynamo, so loops and branches on them trace; numel() of a data-dependent
selection is not known, and a branch on it breaks."""
import torch
import torch.nn as nn


class FlattenIfNeeded(nn.Module):
    def __init__(self, dim=12):
        super().__init__()
        self.proj = nn.Linear(dim, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() > 2:
            x = x.flatten(1)
        if x.ndim == 2 and x.numel() > 0:
            x = x * 1.0
        return self.proj(x)


class BytesBudget(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        budget = x.numel() * x.element_size()
        chunks = max(1, budget // 64)
        return torch.cat([c * 2 for c in x.flatten().chunk(chunks)])


class SelectedCount(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        picked = x[x > 0]
        if picked.numel() == 0:
            return x.sum() * 0
        return picked.mean()


CASES = [
    ("FlattenIfNeeded", FlattenIfNeeded, lambda: (torch.randn(2, 3, 4),)),
    ("BytesBudget", BytesBudget, lambda: (torch.randn(4, 8),)),
    ("SelectedCount", SelectedCount, lambda: (torch.randn(3, 4),)),
]
