"""Keeps the top fraction of tokens by score: a count computed from the data must become a
Python int for topk; a count from the shape is static."""
import torch
import torch.nn as nn


class ConfidentTokens(nn.Module):
    """Keeps as many tokens as score above the threshold."""

    def __init__(self, dim=8):
        super().__init__()
        self.score = nn.Linear(dim, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scores = self.score(x).squeeze(-1)
        keep = (scores > 0).sum(-1).max().clamp(min=1)
        top = scores.topk(keep, dim=-1).indices
        return torch.gather(x, 1, top.unsqueeze(-1).expand(-1, -1, x.shape[-1]))


class RatioTokens(nn.Module):
    def __init__(self, dim=8, ratio=0.5):
        super().__init__()
        self.score = nn.Linear(dim, 1)
        self.ratio = ratio

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scores = self.score(x).squeeze(-1)
        keep = max(1, int(x.shape[1] * self.ratio))
        top = scores.topk(keep, dim=-1).indices
        return torch.gather(x, 1, top.unsqueeze(-1).expand(-1, -1, x.shape[-1]))


CASES = [
    ("ConfidentTokens", ConfidentTokens, lambda: (torch.randn(2, 6, 8),)),
    ("RatioTokens", RatioTokens, lambda: (torch.randn(2, 6, 8),)),
]
