import torch
from torch import nn

from toylib.layers import Mlp, scaled


class Clean(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.mlp = Mlp(dim, hidden=32)

    def forward(self, x):
        return scaled(self.mlp(x), 0.5)
