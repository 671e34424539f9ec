"""Transformer block that records how long its attention and MLP halves take."""
import time

import torch
import torch.nn as nn


class TimedBlock(nn.Module):
    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm1 = nn.LayerNorm(dim)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.timings = {}

    def forward(self, x):
        start = time.perf_counter()
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        self.timings["attn"] = time.perf_counter() - start
        return x + self.mlp(self.norm2(x))


CASES = [("TimedBlock", TimedBlock, lambda: (torch.randn(2, 5, 32),))]
