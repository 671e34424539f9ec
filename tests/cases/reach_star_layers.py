"""Layers that reach_star_models.py imports through reach_star_exports.py's `from ... import *`
re-export (torch_geometric.nn, kornia.augmentation re-export their submodules so). No compile
root calls them here; each runs inside a forward of reach_star_models.py."""
import torch.nn as nn

__all__ = ["Gate", "Sign", "Scale"]


class Gate(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x
        return -x


class Sign(nn.Module):
    """Shadowed: reach_star_exports.py star-imports reach_star_calm.py after this module."""

    def forward(self, x):
        if x.max() > 1:
            return x.sign()
        return x


class Scale(nn.Module):
    def forward(self, x):
        return x * 2
