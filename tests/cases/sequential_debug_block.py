"""An MLP stack built as nn.Sequential with a shape-printing block left in the middle."""
import torch
from torch import nn


class ShapeProbe(nn.Module):
    """Prints the activation statistics it sees and passes a scaled copy on."""

    def forward(self, x):
        h = x.relu()
        print("probe", h.mean())
        return h * 2


class ProbedMLP(nn.Module):
    def __init__(self, dim=8, classes=3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, dim), ShapeProbe(), nn.Linear(dim, classes))

    def forward(self, x):
        return self.net(x)


CASES = [("ProbedMLP", ProbedMLP, lambda: (torch.randn(4, 8),))]
