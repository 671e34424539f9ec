"""Reshapes and factories sized by a 0-d tensor the caller passes (a sequence length kept as
a tensor): view, zeros and repeat take Python ints, and dynamo 2.13 reads a 0-d input as a
symbolic int, so they trace (measured), as does sizing with x.size(0) and x.shape[-1]; a size
reduced from the data in the graph (lengths.max()) needs the value."""
import torch
import torch.nn as nn


class FoldByLength(nn.Module):
    def forward(self, x: torch.Tensor, steps: torch.Tensor) -> torch.Tensor:
        return x.view(x.size(0), steps, -1).mean(1)


class ZerosOfLength(nn.Module):
    def forward(self, x: torch.Tensor, steps: torch.Tensor) -> torch.Tensor:
        pad = torch.zeros(steps)
        return torch.cat([x.flatten(), pad])


class ZerosOfLongest(nn.Module):
    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        pad = torch.zeros(lengths.max())
        return torch.cat([x.flatten(), pad])


class TileByCount(nn.Module):
    def forward(self, x: torch.Tensor, copies: torch.Tensor) -> torch.Tensor:
        return x.repeat(copies, 1)


class FoldByShape(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, width = x.size(0), x.shape[-1]
        folded = x.view(b, 2, width // 2)
        return folded.repeat(1, b, 1) + torch.zeros(width // 2)


CASES = [
    ("FoldByLength", FoldByLength, lambda: (torch.randn(2, 12), torch.tensor(3))),
    ("ZerosOfLength", ZerosOfLength, lambda: (torch.randn(2, 3), torch.tensor(4))),
    ("ZerosOfLongest", ZerosOfLongest, lambda: (torch.randn(2, 3), torch.tensor([2, 4]))),
    ("TileByCount", TileByCount, lambda: (torch.randn(2, 3), torch.tensor(2))),
    ("FoldByShape", FoldByShape, lambda: (torch.randn(2, 8),)),
]
