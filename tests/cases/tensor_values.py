"""Tensors used where Python wants a plain value: a loop count, a pad width, any(), a bool,
a numpy array; and the same code written so that dynamo keeps one graph."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class RefinementLoop(nn.Module):
    """Runs as many refinement steps as there are active rows."""

    def __init__(self, dim=8):
        super().__init__()
        self.step = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        active = (x.abs().sum(-1) > 1.0).sum()
        for _ in range(active):
            x = x + torch.tanh(self.step(x))
        return x


class FixedRefinementLoop(nn.Module):
    def __init__(self, dim=8, steps=2):
        super().__init__()
        self.step = nn.Linear(dim, dim)
        self.steps = steps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for _ in range(min(self.steps, x.shape[0])):
            x = x + torch.tanh(self.step(x))
        return x


class DynamicPad(nn.Module):
    """Pads the sequence by the number of masked positions."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        missing = (x == 0).sum()
        return F.pad(x, (0, missing))


class StaticPad(nn.Module):
    def __init__(self, multiple=8):
        super().__init__()
        self.multiple = multiple

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        extra = (-x.shape[-1]) % self.multiple
        return F.pad(x, (0, extra))


class AnyPositiveGate(nn.Module):
    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        if any(scores[0] > 0):
            return torch.relu(scores)
        return scores


class FlagListGate(nn.Module):
    def __init__(self, flags=(True, False)):
        super().__init__()
        self.flags = list(flags)

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        if any(self.flags):
            return torch.relu(scores)
        return scores


class TiedCheck(nn.Module):
    """Skips the projection when both inputs are the same tensor values."""

    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
        if torch.equal(q, k):
            return q
        return self.proj(k)


class NumpyThreshold(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        values = x.detach().numpy()
        if values.mean() > 0.0:
            return x * 2
        return x


class NumpyStatistic(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scale = np.sqrt(x.shape[-1])
        return x / scale


class SparseAdjacency(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        index = torch.tensor([[0, 1], [1, 0]])
        adjacency = torch.sparse_coo_tensor(index, torch.ones(2), (2, 2))
        return torch.sparse.mm(adjacency, x[:2])


def _pair():
    return torch.randn(2, 8), torch.randn(2, 8)


CASES = [
    ("RefinementLoop", RefinementLoop, lambda: (torch.randn(3, 8),)),
    ("FixedRefinementLoop", FixedRefinementLoop, lambda: (torch.randn(3, 8),)),
    ("DynamicPad", DynamicPad, lambda: (torch.tensor([[1.0, 0.0, 2.0]]),)),
    ("StaticPad", StaticPad, lambda: (torch.randn(2, 5),)),
    ("AnyPositiveGate", AnyPositiveGate, lambda: (torch.randn(2, 4),)),
    ("FlagListGate", FlagListGate, lambda: (torch.randn(2, 4),)),
    ("TiedCheck", TiedCheck, _pair),
    ("NumpyThreshold", NumpyThreshold, lambda: (torch.randn(2, 4),)),
    ("NumpyStatistic", NumpyStatistic, lambda: (torch.randn(2, 4),)),
    ("SparseAdjacency", SparseAdjacency, lambda: (torch.randn(2, 3),)),
]
