"""Label encoders: F.one_hot without a class count sizes its output from the labels' values,
with num_classes it is a fixed shape; nonzero(as_tuple=True) still depends on the data."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class InferredOneHot(nn.Module):
    def forward(self, labels: torch.Tensor) -> torch.Tensor:
        return F.one_hot(labels).float().sum(0)


class FixedOneHot(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.num_classes = num_classes

    def forward(self, labels: torch.Tensor) -> torch.Tensor:
        return F.one_hot(labels, num_classes=self.num_classes).float().sum(0)


class PositiveCoordinates(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rows, cols = torch.nonzero(x > 0, as_tuple=True)
        return rows.float().sum() + cols.float().sum()


CASES = [
    ("InferredOneHot", InferredOneHot, lambda: (torch.tensor([0, 2, 1, 4]),)),
    ("FixedOneHot", FixedOneHot, lambda: (torch.tensor([0, 2, 1, 4]),)),
    ("PositiveCoordinates", PositiveCoordinates, lambda: (torch.randn(3, 4),)),
]
