"""Twelve blocks, each with its own dilation, compiled one by one: each distinct int attribute
recompiles the block's forward, and the ninth distinct block hits the recompile limit."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class DilatedBlock(nn.Module):
    def __init__(self, dilation: int, channels: int = 4):
        super().__init__()
        self.dilation = dilation
        self.weight = nn.Parameter(torch.randn(channels, channels, 3) * 0.1)

    def forward(self, x):
        return x + F.conv1d(x, self.weight, padding=self.dilation, dilation=self.dilation)


class WaveNet(nn.Module):
    def __init__(self, depth: int = 12, channels: int = 4):
        super().__init__()
        self.blocks = nn.ModuleList([DilatedBlock(i + 1, channels) for i in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


class SameDilationNet(nn.Module):
    def __init__(self, depth: int = 12, channels: int = 4):
        super().__init__()
        self.blocks = nn.ModuleList([DilatedBlock(2, channels) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


def twelve_dilations_per_block():
    model = WaveNet()
    for i, block in enumerate(model.blocks):
        model.blocks[i] = torch.compile(block)
    model(torch.randn(1, 4, 32))


def twelve_dilations_whole():
    model = torch.compile(WaveNet())
    model(torch.randn(1, 4, 32))


def one_dilation_per_block():
    model = SameDilationNet()
    for i, block in enumerate(model.blocks):
        model.blocks[i] = torch.compile(block)
    model(torch.randn(1, 4, 32))


RECOMPILE_CASES = [
    ("twelve_dilations_per_block", twelve_dilations_per_block),
    ("twelve_dilations_whole", twelve_dilations_whole),
    ("one_dilation_per_block", one_dilation_per_block),
]
