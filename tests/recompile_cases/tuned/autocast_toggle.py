"""Autocast toggled outside the compiled model recompiles it (even when forward enters autocast
itself); autocast(enabled=False) around every call is no change."""
import torch
import torch.nn as nn


class MixedPrecisionHead(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        return self.fc(x).float()


class SelfCastHead(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return self.fc(x).float()


def autocast_every_other_call():
    model = torch.compile(MixedPrecisionHead())
    x = torch.randn(4, 16)
    for step in range(4):
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=step % 2 == 0):
            model(x)


def autocast_outside_self_cast():
    model = torch.compile(SelfCastHead())
    x = torch.randn(4, 16)
    model(x)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        model(x)


def autocast_disabled():
    model = torch.compile(MixedPrecisionHead())
    x = torch.randn(4, 16)
    model(x)
    with torch.autocast("cpu", enabled=False):
        model(x)


RECOMPILE_CASES = [
    ("autocast_every_other_call", autocast_every_other_call),
    ("autocast_outside_self_cast", autocast_outside_self_cast),
    ("autocast_disabled", autocast_disabled),
]
