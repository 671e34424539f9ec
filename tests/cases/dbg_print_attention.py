"""Self-attention block with print-based tracing of the attention pattern."""
import math

import torch
from torch import nn


class TracedSelfAttention(nn.Module):
    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads)
        print("attention logits max", scores.amax())
        attn = scores.softmax(-1)
        print("attention entropy", -(attn * attn.clamp_min(1e-9).log()).sum(-1).mean())
        out = (attn @ v).transpose(1, 2).reshape(b, n, d)
        print("block output norm", out.norm())
        return self.proj(out)


CASES = [("TracedSelfAttention", TracedSelfAttention, lambda: (torch.randn(2, 6, 16),))]
