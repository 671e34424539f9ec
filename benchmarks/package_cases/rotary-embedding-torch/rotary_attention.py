"""Attention with rotary embeddings, as rotary-embedding-torch's README shows."""
import torch
import torch.nn as nn
from rotary_embedding_torch import RotaryEmbedding


class RotaryAttention(nn.Module):
    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.rotary = RotaryEmbedding(dim=dim // heads)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        q = self.rotary.rotate_queries_or_keys(q)
        k = self.rotary.rotate_queries_or_keys(k)
        out = torch.softmax(q @ k.transpose(-1, -2), dim=-1) @ v
        return out.transpose(1, 2).reshape(b, n, d)


class XPosAttention(nn.Module):
    """README: length-extrapolatable rotary embeddings (xpos)."""

    def __init__(self, dim=16):
        super().__init__()
        self.rotary = RotaryEmbedding(dim=dim, use_xpos=True)

    def forward(self, q, k):
        q, k = self.rotary.rotate_queries_and_keys(q, k)
        return (q @ k.transpose(-1, -2)).softmax(dim=-1)


CASES = [
    ("RotaryAttention", lambda: RotaryAttention(), lambda: (torch.randn(2, 6, 32),)),
    ("XPosAttention", lambda: XPosAttention(), lambda: (torch.randn(1, 2, 6, 16), torch.randn(1, 2, 6, 16))),
]
