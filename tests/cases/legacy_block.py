"""Residual MLP block that still accepts the pre-1.0 post-norm layout."""
import warnings

import torch
from torch import nn


def _deprecated_layout(name):
    warnings.warn(f"{name}: post-norm blocks are deprecated, use pre-norm", DeprecationWarning, stacklevel=3)


class ResidualMLP(nn.Module):
    def __init__(self, dim=32, expansion=2, post_norm=False):
        super().__init__()
        self.post_norm = post_norm
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, dim * expansion)
        self.fc2 = nn.Linear(dim * expansion, dim)

    def forward(self, x):
        if self.post_norm:
            _deprecated_layout(type(self).__name__)
            return self.norm(x + self.fc2(torch.relu(self.fc1(x))))
        return x + self.fc2(torch.relu(self.fc1(self.norm(x))))


CASES = [
    ("ResidualMLP-post", lambda: ResidualMLP(post_norm=True), lambda: (torch.randn(4, 32),)),
    ("ResidualMLP-pre", ResidualMLP, lambda: (torch.randn(4, 32),)),
]
