"""Models whose breaks are in reach_helpers.py, a file without a compile root: dynamo reports
each at the helper's line, so linting reach_helpers.py finds them only through these roots."""
import torch
import torch.nn as nn

from .reach_helpers import RunningTotal, _normalised, _positive_rows, _scaled


class PositiveRows(nn.Module):
    def forward(self, x):
        return _positive_rows(x) * 2


class FewSteps(nn.Module):
    def forward(self, x):
        return _scaled(x, 1)


class ApproximateNorm(nn.Module):
    def forward(self, x):
        return _normalised(x, exact=False)


class Totals(nn.Module):
    def __init__(self):
        super().__init__()
        self.total = RunningTotal(0.5)

    def forward(self, x):
        return self.total.add(x.sum(), x)


CASES = [
    ("PositiveRows", PositiveRows, lambda: (torch.randn(4, 3),)),
    ("FewSteps", FewSteps, lambda: (torch.randn(4, 3),)),
    ("ApproximateNorm", ApproximateNorm, lambda: (torch.randn(4, 3),)),
    ("Totals", Totals, lambda: (torch.randn(4, 3),)),
]
