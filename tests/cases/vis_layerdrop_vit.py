"""DeiT-style ViT encoder with LayerDrop over whole transformer blocks.

Besides per-sample stochastic depth inside each residual branch, entire blocks are skipped at
train time with probability ``layer_drop`` (Fan et al., "Reducing Transformer Depth on Demand").
"""
import torch
import torch.nn as nn

from .vis_layers import DropPath


class Mlp(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class EncoderBlock(nn.Module):
    def __init__(self, dim, num_heads, drop_path=0.0):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, num_heads, batch_first=True)
        self.drop_path = DropPath(drop_path)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = Mlp(dim, dim * 2)

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.drop_path(self.attn(h, h, h, need_weights=False)[0])
        return x + self.drop_path(self.mlp(self.norm2(x)))


class LayerDropEncoder(nn.Module):
    def __init__(self, dim=32, depth=4, num_heads=4, drop_path_rate=0.1, layer_drop=0.2, num_classes=10):
        super().__init__()
        dpr = [x.item() for x in torch.linspace(0, drop_path_rate, depth)]
        self.blocks = nn.ModuleList(EncoderBlock(dim, num_heads, dpr[i]) for i in range(depth))
        self.layer_drop = layer_drop
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward_features(self, x):
        for blk in self.blocks:
            dropout_probability = torch.empty(1).uniform_()
            if self.training and dropout_probability < self.layer_drop:
                continue
            x = blk(x)
        return self.norm(x)

    def forward(self, x):
        x = self.forward_features(x)
        return self.head(x[:, 0])


CASES = [
    ("LayerDropEncoder-train", LayerDropEncoder, lambda: (torch.randn(2, 6, 32),)),
    ("LayerDropEncoder-eval", lambda: LayerDropEncoder().eval(), lambda: (torch.randn(2, 6, 32),)),
]
