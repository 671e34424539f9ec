"""Dropout whose mask does not disturb the global random stream (for reproducible ablations)."""
import torch
from torch import nn


class IsolatedDropout(nn.Module):
    def __init__(self, p=0.1):
        super().__init__()
        self.p = p

    def _mask(self, like):
        with torch.random.fork_rng():
            keep = torch.rand_like(like) >= self.p
        return keep.to(like.dtype) / (1 - self.p)

    def forward(self, x):
        if not self.training or self.p == 0:
            return x
        return x * self._mask(x)


class FeedForward(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.drop = IsolatedDropout(0.2)
        self.fc2 = nn.Linear(4 * dim, dim)

    def forward(self, x):
        return self.fc2(self.drop(torch.relu(self.fc1(x))))


CASES = [("FeedForward", FeedForward, lambda: (torch.randn(4, 16),))]
