"""A compiled module whose forward its file's driver calls with a zip: dynamo gives up on the
whole forward where it iterates it (GB0811; GB9493 from 2.14). Near misses: the same forward
given a tuple of the items, and one given a zip it only passes on."""
import torch
import torch.nn as nn


class PairSum(nn.Module):
    def forward(self, pairs, x):
        for weight, t in pairs:
            x = x + weight * t
        return x


class TupleSum(nn.Module):
    def forward(self, pairs, x):
        for weight, t in pairs:
            x = x + weight * t
        return x


class Untouched(nn.Module):
    def forward(self, pairs, x):
        if pairs is None:
            return x
        return x * 2


def drive(x):
    pair_sum = torch.compile(PairSum())
    tuple_sum = torch.compile(TupleSum())
    untouched = torch.compile(Untouched())
    total = pair_sum(zip([1.0, 2.0], [x, x]), x) + tuple_sum(tuple(zip([1.0, 2.0], [x, x])), x)
    return total + untouched(zip([1.0], [x]), x)


X = torch.randn(4)
CASES = [
    ("PairSum", PairSum, lambda: (zip([1.0, 2.0], [X, X]), X)),
    ("TupleSum", TupleSum, lambda: (tuple(zip([1.0, 2.0], [X, X])), X)),
    ("Untouched", Untouched, lambda: (zip([1.0], [X]), X)),
]
