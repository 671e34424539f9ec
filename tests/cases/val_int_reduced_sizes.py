"""Batch builders sized from the data: repeat, expand and arange take Python ints, so a count
reduced in the graph (mask.sum(), lengths.max()) must be read back; torch.arange of a 0-d count
the caller passes traces, but Python's range() over it does not (GB0059)."""
import torch
import torch.nn as nn


class TileByPositives(nn.Module):
    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return x.repeat(mask.sum(), 1)


class ExpandToLongest(nn.Module):
    def forward(self, query: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        return query.expand(lengths.max(), -1) * 1.0


class PositionsOfInputLength(nn.Module):
    def forward(self, x: torch.Tensor, steps: torch.Tensor) -> torch.Tensor:
        pos = torch.arange(steps)
        for _ in range(steps):
            x = x * 0.9
        return x + pos.sum()


CASES = [
    ("TileByPositives", TileByPositives, lambda: (torch.randn(1, 3), torch.tensor([1, 0, 1]))),
    ("ExpandToLongest", ExpandToLongest, lambda: (torch.randn(1, 3), torch.tensor([2, 4]))),
    ("PositionsOfInputLength", PositionsOfInputLength, lambda: (torch.randn(2, 3), torch.tensor(3))),
]
