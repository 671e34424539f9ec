"""Tensors handed to functions that take Python ints: a pad width, a narrow length, a top-k
count and a loop count taken from the data; the same layers written with static ints."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class PadToBudget(nn.Module):
    """Right-pads the sequence by a width the caller passes as a 0-d tensor."""

    def forward(self, x: torch.Tensor, extra: torch.Tensor) -> torch.Tensor:
        return F.pad(x, (0, extra))


class NarrowFromFirstValid(nn.Module):
    """Keeps two steps from the first valid position of the mask (a tensor start)."""

    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        first = mask.argmax(-1).min()
        return self.proj(x.narrow(1, first, 2))


class RefineByInputSteps(nn.Module):
    """Runs as many refinement steps as the 0-d `steps` tensor says."""

    def __init__(self, dim=8):
        super().__init__()
        self.step = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, steps: torch.Tensor) -> torch.Tensor:
        for _ in range(steps):
            x = x + torch.tanh(self.step(x))
        return x


class NarrowToWindow(nn.Module):
    def __init__(self, dim=8, window=4):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.window = window

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        width = min(self.window, x.shape[1])
        return F.pad(self.proj(x.narrow(1, 0, width)), (0, 0, 0, x.shape[1] - width))


CASES = [
    ("PadToBudget", PadToBudget, lambda: (torch.randn(2, 5), torch.tensor(3))),
    ("NarrowFromFirstValid", NarrowFromFirstValid, lambda: (torch.randn(2, 6, 8), torch.ones(2, 6))),
    ("RefineByInputSteps", RefineByInputSteps, lambda: (torch.randn(3, 8), torch.tensor(2))),
    ("NarrowToWindow", NarrowToWindow, lambda: (torch.randn(2, 6, 8), torch.ones(2, 6))),
]
