"""A 0-d int tensor used as an index (a diffusion timestep): indexing a buffer with it reads it
with .item(), and each new value recompiles; indexing a Python list with it breaks the graph."""
import torch
import torch.nn as nn


class ListScaler(nn.Module):
    def __init__(self, steps: int = 50, width: int = 16):
        super().__init__()
        self.alphas = [0.1 + 0.9 * i / steps for i in range(steps)]
        self.fc = nn.Linear(width, width)

    def forward(self, x, t):
        return self.fc(x) * self.alphas[t]


class BufferScaler(nn.Module):
    def __init__(self, steps: int = 50, width: int = 16):
        super().__init__()
        self.register_buffer("alphas", torch.linspace(0.1, 1.0, steps))
        self.fc = nn.Linear(width, width)

    def forward(self, x, t):
        return self.fc(x) * self.alphas[t]


def list_indexed_by_tensor():
    model = torch.compile(ListScaler())
    x = torch.randn(4, 16)
    for t in range(4):
        model(x, torch.tensor(t))


def buffer_indexed_by_tensor():
    model = torch.compile(BufferScaler())
    x = torch.randn(4, 16)
    for t in range(4):
        model(x, torch.tensor(t))


RECOMPILE_CASES = [
    ("list_indexed_by_tensor", list_indexed_by_tensor),
    ("buffer_indexed_by_tensor", buffer_indexed_by_tensor),
]
