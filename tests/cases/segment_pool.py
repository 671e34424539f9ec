"""Pools a packed batch of variable-length segments into one vector per segment."""
import torch
from torch.nn import Module, Linear, LayerNorm


class SegmentMeanPool(Module):
    def __init__(self, dim=24):
        super().__init__()
        self.norm = LayerNorm(dim)
        self.proj = Linear(dim, dim)

    def forward(self, packed, segment_lengths):
        packed = self.norm(packed)
        pieces = torch.split(packed, segment_lengths.tolist(), dim=0)
        pooled = torch.stack([piece.mean(0) for piece in pieces])
        return self.proj(pooled)


CASES = [("SegmentMeanPool", SegmentMeanPool, lambda: (torch.randn(10, 24), torch.tensor([3, 5, 2])))]
