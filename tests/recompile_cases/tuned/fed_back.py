"""A compiled model's output fed back as its next input: in grad mode the output requires grad
(the module has parameters), so the second call recompiles once on requires_grad; under no_grad
it does not; a step count in range() still compiles once per value; a model whose output has
another shape than its input is not chained."""
import torch
import torch.nn as nn


class Smoother(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.proj = nn.Linear(width, width)
        self.act = nn.GELU()

    def forward(self, x, scale: float):
        h = self.act(self.proj(x))
        return x + scale * h


class Unrolled(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.proj = nn.Linear(width, width)

    def forward(self, x, steps: int):
        for _ in range(steps):
            x = torch.tanh(self.proj(x))
        return x


class Stepper(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.proj = nn.Linear(width, width)

    def forward(self, x, t: int):
        return x + self.proj(x) * (t / 10)


def chained_in_grad_mode():
    model = torch.compile(Smoother())
    x = torch.randn(2, 16)
    for _ in range(3):
        x = model(x, 0.5)


def chained_without_grad():
    model = torch.compile(Smoother())
    x = torch.randn(2, 16)
    with torch.no_grad():
        for _ in range(3):
            x = model(x, 0.5)


def chained_changing_scale():
    model = torch.compile(Smoother())
    x = torch.randn(2, 16)
    with torch.no_grad():
        for scale in (0.5, 0.25, 0.125):
            x = model(x, scale)


def chained_grad_changing_scale():
    model = torch.compile(Smoother())
    x = torch.randn(2, 16)
    for scale in (0.5, 0.25, 0.125):
        x = model(x, scale)


def new_shape_and_scale():
    model = torch.compile(Smoother())
    with torch.no_grad():
        for batch, scale in ((2, 0.5), (4, 0.25), (6, 0.125)):
            model(torch.randn(batch, 16), scale)


def chained_grad_int_step():
    model = torch.compile(Stepper())
    x = torch.randn(2, 16)
    for t in (9, 8, 7):
        x = model(x, t)


def chained_unrolled_steps():
    model = torch.compile(Unrolled())
    x = torch.randn(2, 16)
    with torch.no_grad():
        for steps in (1, 2, 3):
            x = model(x, steps)


RECOMPILE_CASES = [
    ("chained_in_grad_mode", chained_in_grad_mode),
    ("chained_without_grad", chained_without_grad),
    ("chained_changing_scale", chained_changing_scale),
    ("chained_grad_changing_scale", chained_grad_changing_scale),
    ("new_shape_and_scale", new_shape_and_scale),
    ("chained_grad_int_step", chained_grad_int_step),
    ("chained_unrolled_steps", chained_unrolled_steps),
]
