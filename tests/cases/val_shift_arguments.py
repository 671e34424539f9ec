"""Sequence shifts and identity blocks sized by the data: roll's shift and eye's size are
Python ints, read back from a reduction made in the graph; an input-sized factory traces."""
import torch
import torch.nn as nn


class RollToFirstPeak(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shift = x.sum(0).argmax()
        return torch.roll(x, shifts=shift, dims=-1)


class EyeOfRank(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rank = (x.abs().sum(-1) > 0).sum()
        return torch.eye(rank).sum() * x


class ZerosOfInputCount(nn.Module):
    def forward(self, x: torch.Tensor, count: torch.Tensor) -> torch.Tensor:
        return torch.cat([x, x.new_zeros(count, x.shape[-1])])


CASES = [
    ("RollToFirstPeak", RollToFirstPeak, lambda: (torch.randn(2, 4),)),
    ("EyeOfRank", EyeOfRank, lambda: (torch.randn(3, 4),)),
    ("ZerosOfInputCount", ZerosOfInputCount, lambda: (torch.randn(2, 4), torch.tensor(2))),
]
