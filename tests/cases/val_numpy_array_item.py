"""numpy inside forward as transformers' wav2vec2 `_compute_mask_indices` uses it: dynamo traces
numpy arrays as tensors, so a number read out of a random array needs its data, and
np.random.choice breaks with a size as without one (measured with 2.13). A draw with a size
that stays an array traces."""
import numpy as np
import torch
import torch.nn as nn


class RoundingEpsilon(nn.Module):
    """`np.random.rand(1).item()`: the array's one value as a Python float (GB0033)."""

    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        epsilon = np.random.rand(1).item()
        return self.fc(x) * (1.0 + epsilon)


class SampledSpans(nn.Module):
    """`np.random.choice(np.arange(n), k, replace=False)`: choice breaks with a size too (GB0033)."""

    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        starts = np.random.choice(np.arange(x.shape[1] - 2), 2, replace=False)
        return self.fc(x) + torch.as_tensor(starts).sum()


class DrawnNoise(nn.Module):
    """Near miss: `np.random.rand(*shape)` stays an array, traced as a tensor: no break."""

    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        noise = torch.as_tensor(np.random.rand(x.shape[0], x.shape[1])).float()
        return self.fc(x + noise)


CASES = [
    ("RoundingEpsilon", RoundingEpsilon, lambda: (torch.randn(4, 8),)),
    ("SampledSpans", SampledSpans, lambda: (torch.randn(4, 8),)),
    ("DrawnNoise", DrawnNoise, lambda: (torch.randn(4, 8),)),
]
