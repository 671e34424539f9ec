"""A float temperature passed per call and used in arithmetic, and a bool flag choosing a path."""
import torch
import torch.nn as nn


class TemperedSoftmax(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x, temperature: float):
        return (self.fc(x) / temperature).softmax(dim=-1)


class OptionalNorm(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.norm = nn.LayerNorm(width)

    def forward(self, x, normalize: bool):
        h = self.fc(x)
        if normalize:
            h = self.norm(h)
        return h


def temperature_schedule():
    model = torch.compile(TemperedSoftmax())
    x = torch.randn(4, 16)
    for step in range(1, 6):
        model(x, 1.0 / step)


def toggled_flag():
    model = torch.compile(OptionalNorm())
    x = torch.randn(4, 16)
    for step in range(4):
        model(x, step % 2 == 0)


RECOMPILE_CASES = [
    ("temperature_schedule", temperature_schedule),
    ("toggled_flag", toggled_flag),
]
