"""A loss whose label smoothing is passed per call: the float stays a constant of the graph."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class SmoothedLoss(nn.Module):
    def __init__(self, width: int = 16, classes: int = 5):
        super().__init__()
        self.head = nn.Linear(width, classes)

    def forward(self, x, target, smoothing: float):
        return F.cross_entropy(self.head(x), target, label_smoothing=smoothing)


def warmup_smoothing():
    model = torch.compile(SmoothedLoss())
    x, target = torch.randn(4, 16), torch.tensor([0, 1, 2, 3])
    for step in range(3):
        model(x, target, 0.05 * step)


def fixed_smoothing():
    model = torch.compile(SmoothedLoss())
    x, target = torch.randn(4, 16), torch.tensor([0, 1, 2, 3])
    for _ in range(3):
        model(x, target, 0.1)


RECOMPILE_CASES = [
    ("warmup_smoothing", warmup_smoothing),
    ("fixed_smoothing", fixed_smoothing),
]
