"""Memoises an expensive projection per distinct input statistics vector."""
import torch
import torch.nn as nn


class MemoProjection(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.memo = {}

    def forward(self, stats, x):
        key = str(stats)
        if key not in self.memo:
            self.memo[key] = self.proj(stats).tanh()
        return x * self.memo[key]


CASES = [("MemoProjection", MemoProjection, lambda: (torch.tensor([0.5] * 8), torch.randn(2, 8)))]
