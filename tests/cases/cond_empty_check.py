"""Breaks behind an emptiness check in a helper of another file (`if len(idx) == 0: return`).
Dynamo specialises a size on 0 (a guard, no break) and breaks on every call whose tensor has
elements, as a run's data have; a break only an empty tensor reaches, or one behind a count
compared with another number, is not certain."""
import torch
import torch.nn as nn

from .selection_ops import (hardest_score, nonzero_if_empty, nonzero_unless_rows, positive_if_many, positive_part,
                            positive_rows, positive_rows_by_size)


class HardestPair(nn.Module):
    """The indices come from a data-dependent op; the helper breaks after checking them."""

    def forward(self, scores):
        idx = torch.nonzero(scores > 0.5)[:, 0]
        return hardest_score(scores, idx)


class PositiveProjection(nn.Module):
    """`if h.numel() == 0: return h`, then a boolean mask (GB0036)."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        return positive_part(self.proj(x))


class EmptyOnly(PositiveProjection):
    """Near miss: the break is on the empty path, which a run with data never takes."""

    def forward(self, x):
        return nonzero_if_empty(self.proj(x))


class ManyOnly(PositiveProjection):
    """Near miss: `len(h) > 3` is no emptiness test; two rows do not reach the break."""

    def forward(self, x):
        return positive_if_many(self.proj(x))


class PositiveRows(PositiveProjection):
    """`if h.shape[0] == 0: return h`, then a boolean mask."""

    def forward(self, x):
        return positive_rows(self.proj(x))


class PositiveRowsBySize(PositiveProjection):
    """`if h.size(0) == 0: return h`, then a boolean mask."""

    def forward(self, x):
        return positive_rows_by_size(self.proj(x))


class RowsReturnFirst(PositiveProjection):
    """Near miss: `if h.shape[0] > 0: return`: the break after it only an empty batch reaches."""

    def forward(self, x):
        return nonzero_unless_rows(self.proj(x))


CASES = [
    ("HardestPair", HardestPair, lambda: (torch.rand(6, 4),)),
    ("PositiveProjection", PositiveProjection, lambda: (torch.randn(4, 8),)),
    ("EmptyOnly", EmptyOnly, lambda: (torch.randn(4, 8),)),
    ("ManyOnly", ManyOnly, lambda: (torch.randn(2, 8),)),
    ("PositiveRows", PositiveRows, lambda: (torch.randn(4, 8),)),
    ("PositiveRowsBySize", PositiveRowsBySize, lambda: (torch.randn(4, 8),)),
    ("RowsReturnFirst", RowsReturnFirst, lambda: (torch.randn(4, 8),)),
]
