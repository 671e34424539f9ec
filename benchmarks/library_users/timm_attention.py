"""A ViT-style encoder layer on timm's Attention."""
import torch
from torch import nn
from timm.layers import Mlp
from timm.layers.attention import Attention


class EncoderLayer(nn.Module):
    def __init__(self, dim=64, heads=4):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, num_heads=heads, qkv_bias=True)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = Mlp(dim, dim * 4)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        x = x + self.mlp(self.norm2(x))
        print("encoded", x.shape)
        return x
