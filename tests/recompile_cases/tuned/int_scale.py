"""An int argument used only in arithmetic: the second value recompiles once and the int
becomes symbolic; later values reuse that graph."""
import torch
import torch.nn as nn


class ScaledProjection(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.proj = nn.Linear(width, width)

    def forward(self, x, scale: int):
        return self.proj(x) * scale


def changing_scale():
    model = torch.compile(ScaledProjection())
    x = torch.randn(4, 16)
    for scale in range(1, 6):
        model(x, scale)


def fixed_scale():
    model = torch.compile(ScaledProjection())
    x = torch.randn(4, 16)
    for _ in range(5):
        model(x, 2)


RECOMPILE_CASES = [
    ("changing_scale", changing_scale),
    ("fixed_scale", fixed_scale),
]
