"""Layers that split by a count read from the data: split takes a Python int, so a count
reduced from a tensor in the graph must be read back; repeat and chunk by counts from the
shape trace."""
import torch
import torch.nn as nn


class SplitByCount(nn.Module):
    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        size = mask.sum(-1).min().clamp(min=1)
        parts = x.split(size, dim=-1)
        return parts[0] * 2


class ChunkByShape(nn.Module):
    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        copies = x.shape[0]
        parts = x.repeat(copies, 1).chunk(2, dim=-1)
        return parts[0] + parts[1]


CASES = [
    ("SplitByCount", SplitByCount, lambda: (torch.randn(2, 4), torch.ones(2, 2))),
    ("ChunkByShape", ChunkByShape, lambda: (torch.randn(2, 4), torch.ones(2, 3))),
]
