"""Calls an unrolled loop makes at one call site, each breaking: every call is a frame of its own
that dynamo compiles once and reuses while its guards hold (the second call's input requires grad,
so its first graph is compiled again; the third reuses it). A Sequential's project blocks are
frames of their own in the same way. The caller's loop cannot resume, so it runs eagerly."""
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        x = self.fc(x)
        print("block")
        return x.relu()


class LoopOfBreakingBlocks(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Block() for _ in range(3)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class SequentialOfBreakingBlocks(nn.Module):
    def __init__(self):
        super().__init__()
        self.seq = nn.Sequential(Block(), Block(), Block())

    def forward(self, x):
        return self.seq(x)


def helper(x):
    y = x.relu()
    if y.sum() > 0:
        return y * 2
    return y


class LoopOfHelper(nn.Module):
    def forward(self, x):
        x = x + 1
        for _ in range(3):
            x = helper(x)
        return x


class ClosureLoop(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        def step(h):
            h2 = self.fc(h)
            if h2.norm() < 1e-4:
                return h
            return h2
        for _ in range(3):
            x = step(x)
        return x


CASES = [
    ("LoopOfBreakingBlocks", LoopOfBreakingBlocks, lambda: (torch.randn(2, 8),)),
    ("SequentialOfBreakingBlocks", SequentialOfBreakingBlocks, lambda: (torch.randn(2, 8),)),
    ("LoopOfHelper", LoopOfHelper, lambda: (torch.randn(2, 8),)),
    ("ClosureLoop", ClosureLoop, lambda: (torch.randn(2, 8),)),
]
