"""A rotary table grown lazily when a longer sequence arrives: the cached length is a module
int attribute, so every growth recompiles; a table built once in __init__ does not."""
import torch
import torch.nn as nn


class LazyRotary(nn.Module):
    def __init__(self, dim: int = 16):
        super().__init__()
        self.dim = dim
        self.cached_len = 0
        self.cos_cached = torch.zeros(0, dim)

    def forward(self, x):
        seq_len = x.shape[1]
        if seq_len > self.cached_len:
            self.cached_len = seq_len
            positions = torch.arange(seq_len, dtype=torch.float32)
            self.cos_cached = torch.cos(positions[:, None] / 10.0).expand(seq_len, self.dim)
        return x * self.cos_cached[:seq_len]


class PrebuiltRotary(nn.Module):
    def __init__(self, dim: int = 16, max_len: int = 64):
        super().__init__()
        positions = torch.arange(max_len, dtype=torch.float32)
        self.register_buffer("cos_cached", torch.cos(positions[:, None] / 10.0).expand(max_len, dim).clone())

    def forward(self, x):
        return x * self.cos_cached[: x.shape[1]]


def growing_sequences():
    model = torch.compile(LazyRotary())
    for length in (4, 8, 12, 16):
        model(torch.randn(2, length, 16))


def prebuilt_table():
    model = torch.compile(PrebuiltRotary())
    for length in (4, 8, 12, 16):
        model(torch.randn(2, length, 16))


RECOMPILE_CASES = [
    ("growing_sequences", growing_sequences),
    ("prebuilt_table", prebuilt_table),
]
