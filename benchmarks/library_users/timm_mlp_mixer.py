"""A mixer block from timm's layers."""
import torch
from torch import nn
from timm.layers import DropPath, Mlp


class MixerBlock(nn.Module):
    def __init__(self, dim=64, tokens=16, drop_path=0.1):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.token_mlp = Mlp(tokens, tokens * 2)
        self.norm2 = nn.LayerNorm(dim)
        self.channel_mlp = Mlp(dim, dim * 4)
        self.drop_path = DropPath(drop_path)

    def forward(self, x):
        x = x + self.drop_path(self.token_mlp(self.norm1(x).transpose(1, 2)).transpose(1, 2))
        x = x + self.drop_path(self.channel_mlp(self.norm2(x)))
        return x
