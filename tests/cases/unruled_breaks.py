"""Break kinds found in research code: a least-squares solve (torch.linalg.lstsq), an exception
raised by a helper and caught in forward, a `unittest.skip` decorator made inside forward. Near
misses: torch.linalg.solve, the caught raise (dynamo 2.13 handles it: no break) and a helper
whose raise never runs."""
import unittest

import torch
import torch.nn as nn


class LeastSquaresHead(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, a, b):
        a = self.fc(a)
        solution = torch.linalg.lstsq(a, b).solution
        return solution.relu()


class SolveHead(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, a, b):
        a = self.fc(a) + torch.eye(a.shape[-1])
        return torch.linalg.solve(a, b).relu()


def lookup(table, key):
    if key not in table:
        raise KeyError(key)
    return table[key]


class CaughtLookup(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.scales = {"a": 2.0}

    def forward(self, x):
        x = self.fc(x)
        try:
            scale = lookup(self.scales, "b")
        except KeyError:
            scale = 1.0
        return x * scale


class FoundLookup(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.scales = {"a": 2.0}

    def forward(self, x):
        x = self.fc(x)
        try:
            scale = lookup(self.scales, "a")
        except KeyError:
            scale = 1.0
        return x * scale


class SkipMarkInside(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        x = self.fc(x)
        mark = unittest.skip("slow")
        return x + 1, mark


CASES = [
    ("LeastSquaresHead", LeastSquaresHead, lambda: (torch.randn(4, 4), torch.randn(4, 2))),
    ("SolveHead", SolveHead, lambda: (torch.randn(4, 4), torch.randn(4, 2))),
    ("CaughtLookup", CaughtLookup, lambda: (torch.randn(2, 4),)),
    ("FoundLookup", FoundLookup, lambda: (torch.randn(2, 4),)),
    ("SkipMarkInside", SkipMarkInside, lambda: (torch.randn(2, 4),)),
]
