"""Classifier heads that read the fields of torch's named-tuple results (max over a dim, sort,
topk): the fields are tensors, so `.item()` on one breaks; arithmetic on them traces."""
import torch
import torch.nn as nn


class PeakNormalizer(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        peak = h.max(-1).values.max().item()
        return h / (peak + 1.0)


class MedianRank(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        order = torch.sort(x, dim=-1).indices
        first = order[0, 0].item()
        return x[:, first]


class TopkMargin(nn.Module):
    def forward(self, logits: torch.Tensor) -> torch.Tensor:
        top = torch.topk(logits, 2, dim=-1)
        margin = (top.values[:, 0] - top.values[:, 1]).mean()
        if margin > 0.5:
            return logits
        return logits * 0.5


class TopkSoftGate(nn.Module):
    def forward(self, logits: torch.Tensor) -> torch.Tensor:
        top = torch.topk(logits, 2, dim=-1)
        margin = top.values[:, :1] - top.values[:, 1:]
        return logits * torch.sigmoid(margin) + x_index_bias(top.indices)


def x_index_bias(indices):
    return indices.float().mean(-1, keepdim=True)


CASES = [
    ("PeakNormalizer", PeakNormalizer, lambda: (torch.randn(2, 8),)),
    ("MedianRank", MedianRank, lambda: (torch.randn(2, 8),)),
    ("TopkMargin", TopkMargin, lambda: (torch.randn(2, 8),)),
    ("TopkSoftGate", TopkSoftGate, lambda: (torch.randn(2, 8),)),
]
