"""Numerically safe masking and clamping: torch.finfo/iinfo limits and the default dtype are
Python values dynamo folds, so masking with them traces; a branch comparing the data with
finfo().max reads the tensor and breaks."""
import torch
import torch.nn as nn


class SafeMaskFill(nn.Module):
    def forward(self, scores: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        neg = torch.finfo(scores.dtype).min
        eps = torch.finfo(torch.get_default_dtype()).eps
        return scores.masked_fill(~mask, neg).softmax(-1) + eps


class IndexClamp(nn.Module):
    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        top = torch.iinfo(idx.dtype).max
        if top > 2 ** 40:
            idx = idx.clamp(max=2 ** 31 - 1)
        return idx + 1


class OverflowGuard(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        big = torch.finfo(x.dtype).max
        if x.abs().max() >= big:
            x = torch.nan_to_num(x)
        return x * 2


CASES = [
    ("SafeMaskFill", SafeMaskFill, lambda: (torch.randn(2, 4), torch.rand(2, 4) > 0.3)),
    ("IndexClamp", IndexClamp, lambda: (torch.tensor([1, 5, 9]),)),
    ("OverflowGuard", OverflowGuard, lambda: (torch.randn(2, 4),)),
]
