"""numpy sizes that are data (issue 34, mechanism 10): dynamo traces numpy as tensor operations, so
`np.sum(counts)` of an array made from a tensor, or of a Python list, is a traced 0-d value, and a
numpy factory given it as a size needs its value (GB0033, "Data dependent operator"). Near misses:
a size read from the array's shape, and a static size."""
import numpy as np
import torch
import torch.nn as nn


class ZerosOfSum(nn.Module):
    def forward(self, x, lengths):
        counts = lengths.numpy()
        buf = np.zeros((2, np.sum(counts)))
        return x.sum() + torch.from_numpy(buf).sum()


class ArangeOfSum(nn.Module):
    def forward(self, x, lengths):
        counts = lengths.numpy()
        idx = np.arange(counts.sum())
        return x.sum() + torch.from_numpy(idx).sum()


class ZerosOfListSum(nn.Module):
    def forward(self, x):
        buf = np.zeros((2, np.sum([1, 2])))
        return x + torch.from_numpy(buf).sum()


class FullOfMax(nn.Module):
    def forward(self, x, lengths):
        widths = lengths.numpy() * 2
        buf = np.full(widths.max(), 0.5)
        return x.sum() + torch.from_numpy(buf).sum()


class ZerosOfShape(nn.Module):
    def forward(self, x, lengths):
        counts = lengths.numpy()
        buf = np.zeros((2, counts.shape[0]))
        return x.sum() + torch.from_numpy(buf).sum() + counts.sum()


class ZerosOfStaticSize(nn.Module):
    def __init__(self, width=3):
        super().__init__()
        self.width = width

    def forward(self, x):
        buf = np.ones((2, self.width))
        return x + torch.from_numpy(buf).sum()


CASES = [
    ("ZerosOfSum", ZerosOfSum, lambda: (torch.randn(3), torch.tensor([1, 2]))),
    ("ArangeOfSum", ArangeOfSum, lambda: (torch.randn(3), torch.tensor([1, 2]))),
    ("ZerosOfListSum", ZerosOfListSum, lambda: (torch.randn(3),)),
    ("FullOfMax", FullOfMax, lambda: (torch.randn(3), torch.tensor([1, 2]))),
    ("ZerosOfShape", ZerosOfShape, lambda: (torch.randn(3), torch.tensor([1, 2]))),
    ("ZerosOfStaticSize", ZerosOfStaticSize, lambda: (torch.randn(3),)),
]
