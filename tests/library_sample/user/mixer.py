import torch
from torch import nn

from toylib import DropPath, Mlp, normalize_tokens


class Mixer(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mlp = Mlp(dim)
        self.drop_path = DropPath(0.1)

    def forward(self, x):
        x = normalize_tokens(x)
        return x + self.drop_path(self.mlp(self.norm(x)))
