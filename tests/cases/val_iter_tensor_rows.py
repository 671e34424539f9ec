"""Per-example loops written over the batch tensor itself: `for row in x` unrolls over the
static first dimension and each row is a tensor, so arithmetic traces; a per-row .item() or
a branch on a row's values breaks on it."""
import torch
import torch.nn as nn


class PerRowScale(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rows = []
        for row in x:
            rows.append(row / (row.norm() + 1e-6))
        return torch.stack(rows)


class PerRowClip(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        rows = []
        for row in x:
            if row.max() > 1.0:
                row = row / row.max()
            rows.append(row)
        return torch.stack(rows)


class RowLengths(nn.Module):
    def forward(self, mask: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        lengths = [int(row.sum()) for row in mask]
        return x[:, : max(lengths)]


CASES = [
    ("PerRowScale", PerRowScale, lambda: (torch.randn(3, 4),)),
    ("PerRowClip", PerRowClip, lambda: (torch.randn(3, 4) * 2,)),
    ("RowLengths", RowLengths, lambda: (torch.tensor([[1, 1, 0], [1, 0, 0]]), torch.randn(2, 3))),
]
