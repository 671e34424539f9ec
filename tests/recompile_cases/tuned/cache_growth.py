"""Caches a forward grows itself: a key cache concatenated onto a module attribute at every
call, and a cached length the forward raises when a longer input comes; near misses: a cache
preallocated and written in place, and a table grown once before any call."""
import torch
import torch.nn as nn


class AppendingCache(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.keys = torch.zeros(1, 0, width)

    def forward(self, x):
        k = self.proj(x)
        self.keys = torch.cat([self.keys, k], dim=1)
        return torch.softmax(x @ self.keys.transpose(1, 2), dim=-1) @ self.keys


class PreallocatedCache(nn.Module):
    def __init__(self, width: int = 8, max_len: int = 16):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.register_buffer("keys", torch.zeros(1, max_len, width))

    def forward(self, x, position):
        k = self.proj(x)
        self.keys.index_copy_(1, position, k)
        return torch.softmax(x @ self.keys.transpose(1, 2), dim=-1) @ self.keys


class LongestSeen(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        self.width = width
        self.longest = 0

    def forward(self, x):
        length = x.shape[1]
        if length > self.longest:
            self.longest = length
        return x * self.longest


def appending_decode():
    model = torch.compile(AppendingCache())
    with torch.no_grad():
        for _ in range(5):
            model(torch.randn(1, 1, 8))


def preallocated_decode():
    model = torch.compile(PreallocatedCache())
    with torch.no_grad():
        for position in range(5):
            model(torch.randn(1, 1, 8), torch.tensor([position]))


def longest_growing():
    model = torch.compile(LongestSeen())
    for length in (2, 4, 6):
        model(torch.randn(1, length, 8))


def longest_shrinking():
    model = torch.compile(LongestSeen())
    for length in (6, 4, 2):
        model(torch.randn(1, length, 8))


RECOMPILE_CASES = [
    ("appending_decode", appending_decode),
    ("preallocated_decode", preallocated_decode),
    ("longest_growing", longest_growing),
    ("longest_shrinking", longest_shrinking),
]
