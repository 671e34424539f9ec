"""Breaks reached in one mode only: under `if self.training:` a module breaks while training,
under `if not self.training:` in eval mode; a break outside both happens in either. The cases
are named by the mode they run in (`-train`, `-eval`)."""
import torch
import torch.nn as nn


class NoisyStats(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        h = self.proj(x)
        if self.training:
            print("batch mean", h.mean())
        if not self.training:
            h = h * float(h.abs().max())
        return torch.relu(h)


class AlwaysLogs(nn.Module):
    """Near miss: the break is after the mode test, on every path."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        h = self.proj(x)
        if self.training:
            h = h * 0.5
        print("forward")
        return h


CASES = [
    ("NoisyStats-train", NoisyStats, lambda: (torch.randn(2, 8),)),
    ("NoisyStats-eval", lambda: NoisyStats().eval(), lambda: (torch.randn(2, 8),)),
    ("AlwaysLogs-train", AlwaysLogs, lambda: (torch.randn(2, 8),)),
    ("AlwaysLogs-eval", lambda: AlwaysLogs().eval(), lambda: (torch.randn(2, 8),)),
]
