"""Weight-normalised projection with a configurable norm function."""
import torch
import torch.nn as nn


class ScaledProjection(nn.Module):
    def __init__(self, dim=16, out_dim=8, norm="max"):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_dim, dim) * 0.1)
        self.norms = {
            "max": lambda w: w.abs().max().item(),
            "fro": lambda w: w.norm(),
        }
        self.norm = norm

    def forward(self, x):
        w = self.weight / self.norms[self.norm](self.weight)
        return x @ w.t()


CASES = [
    ("ScaledProjection-max", ScaledProjection, lambda: (torch.randn(3, 16),)),
    ("ScaledProjection-fro", lambda: ScaledProjection(norm="fro"), lambda: (torch.randn(3, 16),)),
]
