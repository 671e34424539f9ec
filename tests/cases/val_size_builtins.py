"""Python builtins over sizes and lists of tensors: len() of a tensor or a list, max() of a
shape and sum() of numel() counts are static ints, so branches on them trace; len() of
nonzero() needs its data-dependent size, and a list comprehension of .item() reads each."""
from typing import List

import torch
import torch.nn as nn


class SizeDrivenHead(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, extras: List[torch.Tensor]) -> torch.Tensor:
        total = sum(t.numel() for t in extras)
        if len(x) > 1 and max(x.shape) >= 4 and total > 0:
            x = self.proj(x)
        return x + len(extras)


class CountPositives(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = len(torch.nonzero(x > 0))
        return x * n


class RowMaxima(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        peaks = [row.max().item() for row in x.unbind()]
        return x / max(peaks)


CASES = [
    ("SizeDrivenHead", SizeDrivenHead, lambda: (torch.randn(2, 4), [torch.randn(3), torch.randn(2)])),
    ("CountPositives", CountPositives, lambda: (torch.randn(3, 4),)),
    ("RowMaxima", RowMaxima, lambda: (torch.randn(3, 4),)),
]
