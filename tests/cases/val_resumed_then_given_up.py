"""Forwards that break once where dynamo resumes, then again inside a loop: dynamo keeps the graph
it compiled before the first break and gives up only on the rest of forward."""
import torch
import torch.nn as nn


def announce(h):
    print("features", h.shape)
    return h


class PrintThenLoop(nn.Module):
    """The print ends graph 1 (fc, relu); the branch in the loop gives up on the rest of forward."""

    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.fc(x).relu()
        print("start")
        for _ in range(2):
            h = self.fc(h)
            if h.sum() > 0:
                h = -h
        return h


class HelperThenLoop(nn.Module):
    """The print inside the helper: the caller resumes after the call, then gives up in the loop."""

    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        h = announce(self.fc(x).relu())
        for _ in range(2):
            h = self.fc(h)
            if h.sum() > 0:
                h = -h
        return h


class LoopOnly(nn.Module):
    """Near miss: no break before the loop, so the whole of forward runs eagerly."""

    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.fc(x).relu()
        for _ in range(2):
            h = self.fc(h)
            if h.sum() > 0:
                h = -h
        return h


class MaybePrintThenLoop(nn.Module):
    """Near miss: the first break is only on some calls (a flag of the call), so on the others
    the whole of forward runs eagerly."""

    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x, verbose: bool = False):
        h = self.fc(x).relu()
        if verbose:
            print("start")
        for _ in range(2):
            h = self.fc(h)
            if h.sum() > 0:
                h = -h
        return h


CASES = [
    ("PrintThenLoop", PrintThenLoop, lambda: (torch.randn(2, 8),)),
    ("HelperThenLoop", HelperThenLoop, lambda: (torch.randn(2, 8),)),
    ("LoopOnly", LoopOnly, lambda: (torch.randn(2, 8),)),
    ("MaybePrintThenLoop", MaybePrintThenLoop, lambda: (torch.randn(2, 8),)),
]
