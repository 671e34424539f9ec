"""Project-defined context managers: a class with __enter__/__exit__ that swaps a module
attribute, a @contextlib.contextmanager generator doing the same, and one that prints."""
import contextlib

import torch
import torch.nn as nn


class TemperatureScope:
    def __init__(self, module, temperature):
        self.module = module
        self.temperature = temperature
        self.saved = None

    def __enter__(self):
        self.saved = self.module.temperature
        self.module.temperature = self.temperature
        return self.module

    def __exit__(self, *exc):
        self.module.temperature = self.saved
        return False


@contextlib.contextmanager
def scaled_temperature(module, factor):
    saved = module.temperature
    module.temperature = saved * factor
    try:
        yield module
    finally:
        module.temperature = saved


@contextlib.contextmanager
def announced(name):
    print("entering", name)
    yield
    print("leaving", name)


class TemperedSoftmax(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.temperature = 1.0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with TemperatureScope(self, 0.5):
            sharp = (self.fc(x) / self.temperature).softmax(-1)
        return sharp


class AnnealedSoftmax(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.temperature = 2.0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with scaled_temperature(self, 0.5):
            h = (self.fc(x) / self.temperature).softmax(-1)
        return h


class AnnouncedBlock(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with announced("fc"):
            h = self.fc(x)
        return h.relu()


CASES = [
    ("TemperedSoftmax", TemperedSoftmax, lambda: (torch.randn(2, 8),)),
    ("AnnealedSoftmax", AnnealedSoftmax, lambda: (torch.randn(2, 8),)),
    ("AnnouncedBlock", AnnouncedBlock, lambda: (torch.randn(2, 8),)),
]
