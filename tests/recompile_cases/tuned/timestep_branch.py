"""A sampler counting an int timestep down (DDPM's p_sample: `noise if t > 0 else 0.`): the
second timestep recompiles once and t becomes symbolic, with the outcome of `t > 0` guarded, so
the last step (t = 0) recompiles again at the comparison. The near miss: a countdown that
stops at 1 (the comparison never flips). An equality (`t == 2`) is guarded the same way. The same step under `@torch.inference_mode()`, compiled
through torch's wrapper frame: only the comparison's recompile is the body's."""
import torch
import torch.nn as nn


class Denoiser(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.net = nn.Linear(width, width)

    def forward(self, x, t: int):
        noise = torch.randn_like(x) if t > 0 else 0.
        return self.net(x) * 0.5 + noise * 0.1


class Midpoint(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.net = nn.Linear(width, width)

    def forward(self, x, t: int):
        scale = 2.0 if t == 2 else 1.0
        return self.net(x) * scale


class Sampler(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = nn.Linear(8, 8)

    @torch.inference_mode()
    def p_sample(self, x, t: int):
        noise = torch.randn_like(x) if t > 0 else 0.
        return self.model(x) * 0.5 + noise * 0.1


def countdown_to_zero():
    torch.manual_seed(0)
    model = torch.compile(Denoiser())
    x = torch.randn(2, 8)
    with torch.no_grad():
        for t in reversed(range(5)):
            x = model(x, t)


def countdown_to_one():
    torch.manual_seed(0)
    model = torch.compile(Denoiser())
    x = torch.randn(2, 8)
    with torch.no_grad():
        for t in reversed(range(1, 6)):
            x = model(x, t)


def countdown_through_equality():
    torch.manual_seed(0)
    model = torch.compile(Midpoint())
    x = torch.randn(2, 8)
    with torch.no_grad():
        for t in reversed(range(5)):
            x = model(x, t)


def wrapped_countdown_to_zero():
    torch.manual_seed(0)
    sampler = Sampler()
    p_sample = torch.compile(sampler.p_sample)
    x = torch.randn(2, 8)
    with torch.inference_mode():
        for t in reversed(range(5)):
            x = p_sample(x, t)


RECOMPILE_CASES = [
    ("countdown_to_zero", countdown_to_zero),
    ("countdown_to_one", countdown_to_one),
    ("countdown_through_equality", countdown_through_equality),
    ("wrapped_countdown_to_zero", wrapped_countdown_to_zero),
]
