"""A bool mask through shape ops (issue 34, mechanism 10): `mask.repeat_interleave(2)`,
`torch.repeat_interleave(keep, 2)` and `.flip(0)` keep a bool tensor a mask, so indexing with it
has a dynamic output shape (GB0036). Near miss: an integer index repeated the same way traces."""
import torch
import torch.nn as nn


class MaskRepeat(nn.Module):
    def forward(self, x, mask):
        m = mask.repeat_interleave(2, dim=0)
        return x[m]


class MaskRepeatFn(nn.Module):
    def forward(self, x, lengths):
        keep = lengths > 1
        m = torch.repeat_interleave(keep, 2)
        return x[m]


class MaskFlip(nn.Module):
    def forward(self, x, lengths):
        keep = (lengths > 1).flip(0)
        return x[keep]


class IndexRepeat(nn.Module):
    def forward(self, x, lengths):
        idx = lengths.repeat_interleave(2)
        return x[idx]


CASES = [
    ("MaskRepeat", MaskRepeat, lambda: (torch.randn(4, 3), torch.tensor([True, False]))),
    ("MaskRepeatFn", MaskRepeatFn, lambda: (torch.randn(4, 3), torch.tensor([1, 3]))),
    ("MaskFlip", MaskFlip, lambda: (torch.randn(4, 3), torch.tensor([1, 3, 0, 2]))),
    ("IndexRepeat", IndexRepeat, lambda: (torch.randn(4, 3), torch.tensor([1, 3]))),
]
