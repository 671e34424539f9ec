"""Pooling over variable-size segments whose ids a caller may pass precomputed in **kwargs."""
import torch
import torch.nn as nn

from .ops import distinct_rows, segment_ids


class SegmentPool(nn.Module):
    """Called as `pool(x, sizes)`, its kwargs hold no `segment_ids`: they are computed."""

    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, sizes, **kwargs):
        ids = segment_ids(sizes, kwargs=kwargs)
        pooled = torch.zeros(sizes.shape[0], x.shape[1]).index_add_(0, ids, x)
        return self.proj(pooled)


class CodebookLookup(nn.Module):
    """Built with its default `dedupe=True`, every call dedupes the codes."""

    def __init__(self, dim=8, dedupe=True):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.dedupe = dedupe

    def forward(self, codes):
        return self.proj(distinct_rows(codes, self.dedupe))


class PlainLookup(nn.Module):
    """Near miss: its default `dedupe=False` returns before the dedupe."""

    def __init__(self, dim=8, dedupe=False):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.dedupe = dedupe

    def forward(self, codes):
        return self.proj(distinct_rows(codes, self.dedupe))


CASES = [
    ("SegmentPool", SegmentPool, lambda: (torch.randn(6, 8), torch.tensor([2, 1, 3]))),
    ("CodebookLookup", CodebookLookup, lambda: (torch.randn(5, 8).round(),)),
    ("PlainLookup", PlainLookup, lambda: (torch.randn(5, 8).round(),)),
]
