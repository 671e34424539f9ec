"""Decoders whose loop count or kept prefix comes from a tensor: range() and a slice bound need
Python ints, so the value must be read back; new_zeros sized with .item() breaks at the
.item(); the versions sized from the shape (F.pad, range, slices) trace."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class UnrollBySteps(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.cell = nn.Linear(dim, dim)

    def forward(self, h: torch.Tensor, steps: torch.Tensor) -> torch.Tensor:
        for _ in range(steps.max()):
            h = torch.tanh(self.cell(h))
        return h


class KeepPrefix(nn.Module):
    def forward(self, x: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
        k = keep.sum()
        return x[:, :k].mean(-1)


class PadByItem(nn.Module):
    def forward(self, x: torch.Tensor, budget: torch.Tensor) -> torch.Tensor:
        extra = x.new_zeros(budget.item())
        return torch.cat([x.flatten(), extra])


class PadToShape(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = x.shape[-1]
        out = F.pad(x, (0, n))
        for _ in range(x.size(0)):
            out = out * 0.5
        return out[:, : n + 1]


CASES = [
    ("UnrollBySteps", UnrollBySteps, lambda: (torch.randn(2, 4), torch.tensor([1, 2]))),
    ("KeepPrefix", KeepPrefix, lambda: (torch.randn(2, 5), torch.tensor([1, 1, 0]))),
    ("PadByItem", PadByItem, lambda: (torch.randn(2, 3), torch.tensor(2))),
    ("PadToShape", PadToShape, lambda: (torch.randn(2, 3),)),
]
