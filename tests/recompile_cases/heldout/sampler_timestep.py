"""A sampler calling a compiled denoiser with the timestep as a Python int used in the
embedding's arithmetic, and with the number of refinement steps in range()."""
import math

import torch
import torch.nn as nn


class Denoiser(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x, t: int):
        return self.fc(x) * math.cos(t / 100.0)


class RefiningDenoiser(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x, refine_steps: int):
        for _ in range(refine_steps):
            x = x - 0.1 * self.fc(x)
        return x


def sample_timesteps():
    model = torch.compile(Denoiser())
    x = torch.randn(2, 16)
    for t in range(50, 0, -10):
        x = model(x, t)


def refine_schedule():
    model = torch.compile(RefiningDenoiser())
    x = torch.randn(2, 16)
    for refine_steps in (1, 2, 4):
        x = model(x, refine_steps)


def refine_fixed():
    model = torch.compile(RefiningDenoiser())
    x = torch.randn(2, 16)
    for _ in range(3):
        x = model(x, 2)


RECOMPILE_CASES = [
    ("sample_timesteps", sample_timesteps),
    ("refine_schedule", refine_schedule),
    ("refine_fixed", refine_fixed),
]
