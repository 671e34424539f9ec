"""Token deduplication: unique with return_inverse, unique_consecutive and unique over rows all
size their output by the data; counting with count_nonzero or a boolean sum keeps a fixed
shape and traces, while the length of nonzero() needs the data."""
import torch
import torch.nn as nn


class DedupTokens(nn.Module):
    def __init__(self, vocab=10, dim=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        uniq, inverse = torch.unique(ids, sorted=True, return_inverse=True)
        return self.embed(uniq)[inverse]


class CollapseRepeats(nn.Module):
    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return ids.unique_consecutive().float().mean()


class ActiveCount(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        active = torch.count_nonzero(x > 0, dim=-1) + (x < 0).sum(-1)
        return x / active.clamp(min=1)[:, None]


class ActiveLength(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = torch.nonzero(x > 0).shape[0]
        return x * n


CASES = [
    ("DedupTokens", DedupTokens, lambda: (torch.tensor([3, 1, 3, 7, 1]),)),
    ("CollapseRepeats", CollapseRepeats, lambda: (torch.tensor([1, 1, 2, 2, 2, 3]),)),
    ("ActiveCount", ActiveCount, lambda: (torch.randn(3, 4),)),
    ("ActiveLength", ActiveLength, lambda: (torch.randn(3, 4),)),
]
