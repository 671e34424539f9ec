"""Top-k selection where k comes from the data: torch.topk's function form with a count
computed in the graph, and kthvalue with a count from the shape (which traces)."""
import torch
import torch.nn as nn


class AdaptiveTopk(nn.Module):
    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        k = (scores > 0).sum(-1).max().clamp(min=1)
        values, _ = torch.topk(scores, k, dim=-1)
        return values.sum(-1)


class MedianByKth(nn.Module):
    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        k = scores.shape[-1] // 2 + 1
        return torch.kthvalue(scores, k, dim=-1).values


CASES = [
    ("AdaptiveTopk", AdaptiveTopk, lambda: (torch.randn(2, 6),)),
    ("MedianByKth", MedianByKth, lambda: (torch.randn(2, 6),)),
]
