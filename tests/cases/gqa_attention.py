"""Grouped-query attention (Llama 2 70B style): fewer key/value heads than query heads."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class GroupedQueryAttention(nn.Module):
    def __init__(self, dim=32, heads=8, kv_heads=2):
        super().__init__()
        assert heads % kv_heads == 0
        self.heads, self.kv_heads = heads, kv_heads
        self.head_dim = dim // heads
        self.n_rep = heads // kv_heads
        self.q = nn.Linear(dim, heads * self.head_dim, bias=False)
        self.kv = nn.Linear(dim, 2 * kv_heads * self.head_dim, bias=False)
        self.o = nn.Linear(heads * self.head_dim, dim, bias=False)

    def forward(self, x, causal=True):
        b, n, _ = x.shape
        q = self.q(x).view(b, n, self.heads, self.head_dim).transpose(1, 2)
        k, v = self.kv(x).view(b, n, 2, self.kv_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        k = k.repeat_interleave(self.n_rep, dim=1)
        v = torch.repeat_interleave(v, repeats=self.n_rep, dim=1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        if causal:
            mask = torch.ones(n, n, dtype=torch.bool).triu(1)
            scores = scores.masked_fill(mask, float("-inf"))
        y = F.softmax(scores, dim=-1) @ v
        return self.o(y.transpose(1, 2).reshape(b, n, -1))


CASES = [("GroupedQueryAttention", GroupedQueryAttention, lambda: (torch.randn(2, 5, 32),))]
