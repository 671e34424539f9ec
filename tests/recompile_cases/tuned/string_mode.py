"""A string argument choosing a branch: every distinct string is its own compile."""
import torch
import torch.nn as nn


class PoolingHead(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x, pooling: str):
        h = self.fc(x)
        if pooling == "mean":
            return h.mean(dim=0)
        return h.amax(dim=0)


def both_poolings():
    model = torch.compile(PoolingHead())
    x = torch.randn(4, 16)
    for pooling in ["mean", "max", "mean", "max"]:
        model(x, pooling)


def mean_only():
    model = torch.compile(PoolingHead())
    x = torch.randn(4, 16)
    for _ in range(4):
        model(x, "mean")


RECOMPILE_CASES = [
    ("both_poolings", both_poolings),
    ("mean_only", mean_only),
]
