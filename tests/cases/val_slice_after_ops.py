"""A tensor slice bound after the frame has traced some ops: dynamo compiles what came before and
runs the rest of the function eagerly, as `step_unsupported()` does; after fewer than two ops of
the frame's own (an "empty checkpoint") it runs the whole function eagerly. In a helper, the
helper's own ops count: the caller's graph ends at the call either way."""
import torch
from torch import nn


class DropLeadingColumns(nn.Module):
    def forward(self, x, mask):
        y = x * 2
        start = mask.float().argmax(-1).min()
        z = y[:, start:]
        return z.relu() + 1


def crop_after_ops(x, length):
    y = torch.tanh(x) * 2
    return y[:, :length].sum(1)


class HelperCrop(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x, mask):
        h = self.proj(x)
        return crop_after_ops(h, mask.sum(-1).max()) * 3


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        return self.fc(x).relu()


class BlockThenCrop(nn.Module):
    """The ops of the block forward inlined count: they are in the frame's graph."""

    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x, mask):
        h = self.block(x)
        return h[:, :mask.sum(-1)[0]] * 2


class CropFirst(nn.Module):
    """Two ops (sum, max) before the slice are enough for a graph; `lengths.max()` alone is not
    (val_slice_bounds.py TrimToLongest: 0 graphs)."""

    def forward(self, x, mask):
        longest = mask.sum(-1).max()
        return x[:, :longest] * 2


def _inputs():
    mask = torch.zeros(2, 6, dtype=torch.bool)
    mask[:, 2:] = True
    return torch.randn(2, 6, 4), mask


CASES = [
    ("DropLeadingColumns", DropLeadingColumns, _inputs),
    ("HelperCrop", HelperCrop, _inputs),
    ("BlockThenCrop", BlockThenCrop, _inputs),
    ("CropFirst", CropFirst, _inputs),
]
