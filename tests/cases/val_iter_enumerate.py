"""Multi-scale heads that enumerate their inputs: enumerate over a list of tensors or over
unbind() yields tensors, so arithmetic on them traces, while .item() on one after the loop,
or a branch on one of them, still needs its value."""
from typing import List

import torch
import torch.nn as nn


class ScaleWeightedSum(nn.Module):
    def __init__(self, dim=8, levels=3):
        super().__init__()
        self.heads = nn.ModuleList(nn.Linear(dim, dim) for _ in range(levels))

    def forward(self, feats: List[torch.Tensor]) -> torch.Tensor:
        total = 0
        for i, (head, feat) in enumerate(zip(self.heads, feats)):
            total = total + head(feat) * (i + 1)
        return total


class BestSlice(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scores = []
        for i, step in enumerate(x.unbind(1)):
            scores.append(step.sum() * i)
        best = scores[-1]
        return x * best.item()


class GatedLevels(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, feats: List[torch.Tensor]) -> torch.Tensor:
        out = feats[0]
        for i, feat in enumerate(feats[1:], start=1):
            if feat.mean() > 0:
                out = out + self.proj(feat) / i
        return out


CASES = [
    ("ScaleWeightedSum", ScaleWeightedSum, lambda: ([torch.randn(2, 8) for _ in range(3)],)),
    ("BestSlice", BestSlice, lambda: (torch.randn(2, 3, 4),)),
    ("GatedLevels", GatedLevels, lambda: ([torch.randn(2, 8) for _ in range(3)],)),
]
