"""Reshape-heavy layers that carry shapes around as Python lists."""
import torch
import torch.nn as nn


class SplitHeads(nn.Module):
    def __init__(self, dim=24, splits=(8, 8, 8)):
        super().__init__()
        self.register_buffer("split_sizes", torch.tensor(splits))
        self.sizes = self.split_sizes.tolist()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        shape = list(x.shape)
        batch_dims = shape[:-1]
        parts = torch.split(self.proj(x), self.sizes, dim=-1)
        merged = torch.stack(parts, dim=-2)
        target = batch_dims + [len(self.sizes), -1]
        out_shape = torch.Size(target[:-1] + [merged.shape[-1]])
        return merged.reshape(target).view(out_shape), torch.tensor(x.shape)


CASES = [("SplitHeads", SplitHeads, lambda: (torch.randn(2, 3, 24),))]
