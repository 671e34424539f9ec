"""Mixture-of-Depths transformer (Raposo et al.): each block processes only the top-k tokens
chosen by a scalar router and lets the rest skip it through the residual stream.

Top-k over the sequence is not causal, so for autoregressive inference a small predictor is
trained to tell whether a token would have been routed; at inference only the tokens it
accepts are gathered and sent through the block.
"""
import torch
from torch import nn
import torch.nn.functional as F


class TokenRouter(nn.Module):
    def __init__(self, dim, capacity=0.5):
        super().__init__()
        self.capacity = capacity
        self.proj = nn.Linear(dim, 1)
        self.predictor = nn.Sequential(nn.Linear(dim, dim // 2), nn.SiLU(), nn.Linear(dim // 2, 1))

    def forward(self, x):
        batch_size, seq_len, _ = x.shape
        logits = self.proj(x).squeeze(-1)
        if self.training:
            k = max(1, int(self.capacity * seq_len))
            weights, idx = torch.topk(logits, k, dim=1, sorted=False)
            idx, order = idx.sort(dim=1)
            aux = F.binary_cross_entropy_with_logits(
                self.predictor(x.detach()).squeeze(-1), torch.zeros_like(logits).scatter(1, idx, 1.0))
            return idx, torch.sigmoid(weights.gather(1, order)), aux
        accept = self.predictor(x).squeeze(-1) > 0
        idx = torch.nonzero(accept[0]).T
        return idx, torch.sigmoid(logits.gather(1, idx)), logits.new_zeros(())


class MoDBlock(nn.Module):
    def __init__(self, dim=16, hidden=32, capacity=0.5):
        super().__init__()
        self.router = TokenRouter(dim, capacity)
        self.norm = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))

    def forward(self, x):
        idx, weights, aux = self.router(x)
        gather_idx = idx.unsqueeze(-1).expand(-1, -1, x.size(-1))
        selected = x.gather(1, gather_idx)
        update = self.mlp(self.norm(selected)) * weights.unsqueeze(-1)
        return x.scatter_add(1, gather_idx, update), aux


class MoDTransformer(nn.Module):
    def __init__(self, dim=16, depth=3, capacity=0.5):
        super().__init__()
        self.blocks = nn.ModuleList(MoDBlock(dim, capacity=capacity) for _ in range(depth))
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        aux_loss = x.new_zeros(())
        for block in self.blocks:
            x, aux = block(x)
            aux_loss = aux_loss + aux
        return self.norm(x), aux_loss / len(self.blocks)


CASES = [
    ("MoDTransformer-train", MoDTransformer, lambda: (torch.randn(2, 8, 16),)),
    ("MoDTransformer-infer", lambda: MoDTransformer().eval(), lambda: (torch.randn(1, 8, 16),)),
]
