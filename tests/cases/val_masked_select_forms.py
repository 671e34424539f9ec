"""Picking the valid entries of a batch: masked_select, argwhere and boolean indexing give a
data-dependent number of elements; masked_fill and torch.where with three arguments keep the
shape and trace."""
import torch
import torch.nn as nn


class ValidMean(nn.Module):
    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return x.masked_select(mask).mean()


class ValidPositions(nn.Module):
    def forward(self, mask: torch.Tensor) -> torch.Tensor:
        pos = torch.argwhere(mask)
        return pos.float().mean(0)


class ValidMeanDense(nn.Module):
    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        kept = torch.where(mask, x, torch.zeros_like(x))
        return kept.sum() / mask.sum().clamp(min=1) + x.masked_fill(~mask, 0).mean()


CASES = [
    ("ValidMean", ValidMean, lambda: (torch.randn(2, 4), torch.rand(2, 4) > 0.4)),
    ("ValidPositions", ValidPositions, lambda: (torch.rand(3, 4) > 0.5,)),
    ("ValidMeanDense", ValidMeanDense, lambda: (torch.randn(2, 4), torch.rand(2, 4) > 0.4)),
]
