"""Early-exit encoder: stops applying layers once the hidden state stops changing."""
import torch
import torch.nn as nn


class EncoderLayer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        return x + self.ff(self.norm(x))


class EarlyExitEncoder(nn.Module):
    def __init__(self, dim=16, depth=4, tolerance=1e-3):
        super().__init__()
        self.layers = nn.ModuleList([EncoderLayer(dim) for _ in range(depth)])
        self.tolerance = tolerance

    def forward(self, x):
        for layer in self.layers:
            y = layer(x)
            delta = (y - x).norm() / x.norm()
            x = y
            if delta < self.tolerance:
                break
        return x


CASES = [("EarlyExitEncoder", EarlyExitEncoder, lambda: (torch.randn(2, 5, 16),))]
