"""A head replaced between calls: one of the same class and shape does not recompile; one of
another class does."""
import torch
import torch.nn as nn


class Backbone(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.body = nn.Linear(width, width)
        self.head = nn.Linear(width, 4)

    def forward(self, x):
        return self.head(torch.relu(self.body(x)))


def same_head():
    model = Backbone()
    compiled = torch.compile(model)
    x = torch.randn(4, 16)
    compiled(x)
    model.head = nn.Linear(16, 4)
    compiled(x)


def other_head():
    model = Backbone()
    compiled = torch.compile(model)
    x = torch.randn(4, 16)
    compiled(x)
    model.head = nn.Sequential(nn.Linear(16, 4), nn.Tanh())
    compiled(x)


RECOMPILE_CASES = [
    ("same_head", same_head),
    ("other_head", other_head),
]
