"""A dropout probability passed per call: F.dropout's p stays a Python float, so a schedule of
rates recompiles at every new rate."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class ScheduledDropout(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x, p: float):
        return F.dropout(self.fc(x), p=p, training=True)


def annealed_rate():
    model = torch.compile(ScheduledDropout())
    x = torch.randn(4, 16)
    for step in range(4):
        model(x, 0.1 * step)


def constant_rate():
    model = torch.compile(ScheduledDropout())
    x = torch.randn(4, 16)
    for _ in range(4):
        model(x, 0.1)


RECOMPILE_CASES = [
    ("annealed_rate", annealed_rate),
    ("constant_rate", constant_rate),
]
