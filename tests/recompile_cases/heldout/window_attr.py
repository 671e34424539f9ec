"""A sliding-window attention whose window size the caller sets between calls; a variant that
passes the window as a tensor."""
import torch
import torch.nn as nn


class WindowPool(nn.Module):
    def __init__(self):
        super().__init__()
        self.window = 2

    def forward(self, x):
        return x.unfold(1, self.window, 1).mean(dim=-1)


def widening_windows():
    model = WindowPool()
    compiled = torch.compile(model)
    x = torch.randn(2, 16)
    for window in (2, 3, 4):
        model.window = window
        compiled(x)


def fixed_window():
    model = WindowPool()
    compiled = torch.compile(model)
    x = torch.randn(2, 16)
    for _ in range(3):
        compiled(x)


RECOMPILE_CASES = [
    ("widening_windows", widening_windows),
    ("fixed_window", fixed_window),
]
