"""Relative-position and sinusoidal encodings computed with the math module."""
import math

import torch
import torch.nn as nn

from .ops import sinusoid_table


def relative_bucket(relative_position, num_buckets=8, max_distance=32):
    """T5's log-spaced relative position buckets."""
    num_buckets //= 2
    sign_bucket = (relative_position > 0).long() * num_buckets
    n = relative_position.abs()
    max_exact = num_buckets // 2
    is_small = n < max_exact
    scale = (num_buckets - max_exact) / math.log(max_distance / max_exact)
    large = max_exact + (torch.log(n.float().clamp(min=1) / max_exact) * scale).long()
    large = large.clamp(max=num_buckets - 1)
    return sign_bucket + torch.where(is_small, n, large)


class RelativePositionBias(nn.Module):
    def __init__(self, heads=2, num_buckets=8, dim=16):
        super().__init__()
        self.num_buckets = num_buckets
        self.bias = nn.Embedding(num_buckets, heads)
        self.dim = dim
        self.scale = 1.0 / math.sqrt(dim)

    def forward(self, x):
        n = x.shape[1]
        pos = torch.arange(n)
        buckets = relative_bucket(pos[None, :] - pos[:, None], self.num_buckets)
        table = sinusoid_table(n, self.dim)
        temperature = math.log(max(n, 2))
        scores = (x + table) @ (x + table).transpose(1, 2) * self.scale / temperature
        return scores.unsqueeze(1) + self.bias(buckets).permute(2, 0, 1)


CASES = [("RelativePositionBias", RelativePositionBias, lambda: (torch.randn(2, 6, 16),))]
