"""Input validation in forward: a raise on a shape condition dynamo can decide while tracing,
a custom exception class, and a raise guarded by a tensor's value."""
import torch
import torch.nn as nn


class SequenceTooLongError(ValueError):
    def __init__(self, length, limit):
        super().__init__(f"sequence of length {length} exceeds the limit {limit}")
        self.length = length
        self.limit = limit


class PositionalEncoder(nn.Module):
    def __init__(self, dim=8, max_len=16):
        super().__init__()
        self.max_len = max_len
        self.table = nn.Parameter(torch.randn(max_len, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() != 3:
            raise ValueError(f"expected (batch, length, dim), got {tuple(x.shape)}")
        if x.shape[1] > self.max_len:
            raise SequenceTooLongError(x.shape[1], self.max_len)
        return x + self.table[: x.shape[1]]


class ProbabilityHead(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        probs = self.fc(x).softmax(-1)
        if (probs < 0).any():
            raise RuntimeError("negative probability")
        return probs


class TokenMixer(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, mask: torch.Tensor = None) -> torch.Tensor:
        if mask is not None and mask.shape != x.shape[:2]:
            raise ValueError("mask must be (batch, length)")
        h = self.fc(x)
        if mask is not None:
            h = h.masked_fill(~mask[..., None], 0.0)
        return h


CASES = [
    ("PositionalEncoder", PositionalEncoder, lambda: (torch.randn(2, 5, 8),)),
    ("ProbabilityHead", ProbabilityHead, lambda: (torch.randn(2, 8),)),
    ("TokenMixer", TokenMixer, lambda: (torch.randn(2, 5, 8), torch.ones(2, 5, dtype=torch.bool))),
]
