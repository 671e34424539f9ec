"""Attention with an optional mask: `if mask is not None` is decided per call, and the scores
leave both arms as a tensor; a later .item() on them, or a branch on the mask's values, still
needs the data, while combining them with the mask traces."""
import torch
import torch.nn as nn


class MaskedScores(nn.Module):
    def forward(self, q: torch.Tensor, k: torch.Tensor, mask=None) -> torch.Tensor:
        scores = q @ k.transpose(-1, -2)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        return scores.softmax(-1)


class MaskedScoresLogged(nn.Module):
    def forward(self, q: torch.Tensor, k: torch.Tensor, mask=None) -> torch.Tensor:
        scores = q @ k.transpose(-1, -2)
        if mask is not None:
            scores = scores.masked_fill(~mask, -1e4)
        peak = scores.max().item()
        return (scores - peak).softmax(-1)


class MaskedMeanPool(nn.Module):
    def forward(self, x: torch.Tensor, mask=None) -> torch.Tensor:
        if mask is None:
            weights = x.new_ones(x.shape[:2])
        else:
            weights = mask.float()
        if weights.sum() == 0:
            return x.mean(1)
        return (x * weights[..., None]).sum(1) / weights.sum(1, keepdim=True)


CASES = [
    ("MaskedScores", MaskedScores, lambda: (torch.randn(2, 3, 4), torch.randn(2, 3, 4), torch.ones(2, 3, 3, dtype=torch.bool))),
    ("MaskedScoresLogged", MaskedScoresLogged, lambda: (torch.randn(2, 3, 4), torch.randn(2, 3, 4), torch.ones(2, 3, 3, dtype=torch.bool))),
    ("MaskedMeanPool", MaskedMeanPool, lambda: (torch.randn(2, 3, 4), torch.ones(2, 3))),
]
