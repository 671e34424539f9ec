"""A running statistic kept in a buffer: rebinding it with torch.where or updating it in place
does not recompile."""
import torch
import torch.nn as nn


class RunningMax(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.register_buffer("peak", torch.zeros(width))

    def forward(self, x):
        h = self.fc(x)
        current = h.detach().amax(dim=0)
        self.peak = torch.where(current > self.peak, current, self.peak)
        return h / (self.peak + 1.0)


class InPlaceRunningMax(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.register_buffer("peak", torch.zeros(width))

    def forward(self, x):
        h = self.fc(x)
        self.peak.copy_(torch.maximum(self.peak, h.detach().amax(dim=0)))
        return h / (self.peak + 1.0)


def rebound_buffer():
    model = torch.compile(RunningMax())
    for _ in range(4):
        model(torch.randn(4, 16))


def in_place_buffer():
    model = torch.compile(InPlaceRunningMax())
    for _ in range(4):
        model(torch.randn(4, 16))


RECOMPILE_CASES = [
    ("rebound_buffer", rebound_buffer),
    ("in_place_buffer", in_place_buffer),
]
