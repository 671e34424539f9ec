"""`self.step += 1` in forward: the int attribute is guarded, so every call recompiles until
the limit; a buffer updated in place does not recompile."""
import torch
import torch.nn as nn


class CountingNorm(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.step = 0

    def forward(self, x):
        self.step += 1
        return self.norm(x) * (1.0 + 1.0 / self.step)


class BufferCountingNorm(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.register_buffer("step", torch.zeros(()))

    def forward(self, x):
        self.step.add_(1)
        return self.norm(x) * (1.0 + 1.0 / self.step)


def int_counter():
    model = torch.compile(CountingNorm())
    x = torch.randn(4, 16)
    for _ in range(4):
        model(x)


def int_counter_long():
    model = torch.compile(CountingNorm())
    x = torch.randn(4, 16)
    for _ in range(12):
        model(x)


def buffer_counter():
    model = torch.compile(BufferCountingNorm())
    x = torch.randn(4, 16)
    for _ in range(4):
        model(x)


RECOMPILE_CASES = [
    ("int_counter", int_counter),
    ("int_counter_long", int_counter_long),
    ("buffer_counter", buffer_counter),
]
