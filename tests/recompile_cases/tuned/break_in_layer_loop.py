"""A graph break in the layer loop: after the break each block runs as a frame of its own, so
a per-block int attribute recompiles the block's forward per block."""
import torch
import torch.nn as nn


class ScaledBlock(nn.Module):
    def __init__(self, layer_idx: int, width: int = 16):
        super().__init__()
        self.layer_idx = layer_idx
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        return x + self.fc(x) / (self.layer_idx + 1)


class LoggedStack(nn.Module):
    def __init__(self, depth: int = 4, width: int = 16):
        super().__init__()
        self.blocks = nn.ModuleList([ScaledBlock(i, width) for i in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
            print("block done")
        return x


class QuietStack(nn.Module):
    def __init__(self, depth: int = 4, width: int = 16):
        super().__init__()
        self.blocks = nn.ModuleList([ScaledBlock(i, width) for i in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


def break_after_each_block():
    model = torch.compile(LoggedStack())
    model(torch.randn(4, 16))


def no_break():
    model = torch.compile(QuietStack())
    model(torch.randn(4, 16))


RECOMPILE_CASES = [
    ("break_after_each_block", break_after_each_block),
    ("no_break", no_break),
]
