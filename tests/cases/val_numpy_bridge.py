"""Preprocessing that drops to numpy and comes back: dynamo 2.13 traces numpy on an array made
from a tensor as tensor operations, so the round trip through torch.from_numpy stays in the
graph; a branch on a numpy reduction of the data, np.bincount of it and .tolist() break."""
import numpy as np
import torch
import torch.nn as nn


class NumpyStandardize(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        feats = np.asarray(x.detach())
        feats = (feats - feats.mean(axis=0)) / (feats.std(axis=0) + 1e-5)
        return self.proj(torch.from_numpy(feats))


class NumpyOutlierGuard(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        values = x.detach().numpy()
        peak = np.max(np.abs(values))
        if peak > 3.0:
            x = x.clamp(-3.0, 3.0)
        return self.proj(x)


class NumpyClassHistogram(nn.Module):
    def forward(self, labels: torch.Tensor) -> torch.Tensor:
        counts = np.bincount(labels.numpy(), minlength=4)
        weights = counts.tolist()
        return torch.tensor(weights, dtype=torch.float32) / labels.numel()


CASES = [
    ("NumpyStandardize", NumpyStandardize, lambda: (torch.randn(4, 8),)),
    ("NumpyOutlierGuard", NumpyOutlierGuard, lambda: (torch.randn(4, 8) * 2,)),
    ("NumpyClassHistogram", NumpyClassHistogram, lambda: (torch.tensor([0, 1, 1, 3, 2, 1]),)),
]
