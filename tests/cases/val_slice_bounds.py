"""Sequence models that cut a batch to the longest real length: a slice bound that is a tensor
must become a Python int, which dynamo 2.13 cannot do without the tensor's value; a bound
computed from the shape is static and traces."""
import torch
import torch.nn as nn


class TrimToLongest(nn.Module):
    """Drops the padding columns no sequence of the batch reaches."""

    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        longest = lengths.max()
        x = x[:, :longest]
        return self.proj(x)


class KeepFirstTokens(nn.Module):
    """Keeps as many tokens as the caller's 0-d budget tensor says."""

    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, budget: torch.Tensor) -> torch.Tensor:
        h = self.proj(x)
        return h[:, :budget]


class KeepFirstHalf(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        half = x.shape[1] // 2
        return self.proj(x[:, :half])


CASES = [
    ("TrimToLongest", TrimToLongest, lambda: (torch.randn(2, 6, 8), torch.tensor([3, 5]))),
    ("KeepFirstTokens", KeepFirstTokens, lambda: (torch.randn(2, 6, 8), torch.tensor(4))),
    ("KeepFirstHalf", KeepFirstHalf, lambda: (torch.randn(2, 6, 8), torch.tensor([3, 5]))),
]
