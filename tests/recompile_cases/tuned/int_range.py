"""A depth passed as an int argument and used in range(): dynamo unrolls the loop, so the int
stays a Python constant and every new value compiles the frame again (even with dynamic=True)."""
import torch
import torch.nn as nn


class RepeatedMixer(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.mix = nn.Linear(width, width)

    def forward(self, x, depth: int):
        for _ in range(depth):
            x = torch.tanh(self.mix(x))
        return x


def three_depths():
    model = torch.compile(RepeatedMixer())
    x = torch.randn(4, 16)
    for depth in range(1, 4):
        model(x, depth)


def ten_depths():
    model = torch.compile(RepeatedMixer())
    x = torch.randn(4, 16)
    for depth in range(1, 11):
        model(x, depth)


def ten_depths_dynamic():
    model = torch.compile(RepeatedMixer(), dynamic=True)
    x = torch.randn(4, 16)
    for depth in range(1, 11):
        model(x, depth)


def same_depth():
    model = torch.compile(RepeatedMixer())
    x = torch.randn(4, 16)
    for _ in range(5):
        model(x, 3)


RECOMPILE_CASES = [
    ("three_depths", three_depths),
    ("ten_depths", ten_depths),
    ("ten_depths_dynamic", ten_depths_dynamic),
    ("same_depth", same_depth),
]
