"""An attention block whose optional mask is annotated with a module-level alias of
Optional[Tensor], as transformers-style code does: the mask is still a tensor, so branching
on its values breaks; narrowing on `is not None` alone traces."""
from typing import Optional

import torch
import torch.nn as nn

OptionalTensor = Optional[torch.Tensor]


class MaskedPool(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, mask: OptionalTensor = None) -> torch.Tensor:
        h = self.proj(x)
        if mask is not None and mask.all():
            return h.mean(1)
        if mask is not None:
            h = h * mask.unsqueeze(-1)
        return h.sum(1)


class MaskedSum(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, mask: OptionalTensor = None) -> torch.Tensor:
        h = self.proj(x)
        if mask is not None:
            h = h * mask.unsqueeze(-1)
        return h.sum(1)


CASES = [
    ("MaskedPool", MaskedPool, lambda: (torch.randn(2, 4, 8), torch.ones(2, 4))),
    ("MaskedSum", MaskedSum, lambda: (torch.randn(2, 4, 8), torch.ones(2, 4))),
]
