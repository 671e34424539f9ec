"""An EMA teacher counting its updates in an int attribute inside forward."""
import torch
import torch.nn as nn


class EmaTeacher(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.updates = 0

    def forward(self, x):
        self.updates = self.updates + 1
        decay = min(0.99, (1 + self.updates) / (10 + self.updates))
        return self.proj(x) * decay


def ten_updates():
    model = torch.compile(EmaTeacher())
    for _ in range(10):
        model(torch.randn(2, 16))


RECOMPILE_CASES = [
    ("ten_updates", ten_updates),
]
