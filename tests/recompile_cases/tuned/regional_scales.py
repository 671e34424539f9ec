"""Blocks compiled one by one, each with its own float residual scale."""
import torch
import torch.nn as nn


class ScaledResidual(nn.Module):
    def __init__(self, scale: float, width: int = 16):
        super().__init__()
        self.scale = scale
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        return x + self.scale * self.fc(x)


class ResidualStack(nn.Module):
    def __init__(self, depth: int = 4, width: int = 16):
        super().__init__()
        self.blocks = nn.ModuleList([ScaledResidual(1.0 / (i + 1), width) for i in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


def per_block_scales():
    model = ResidualStack()
    for block in model.blocks:
        block.compile()
    model(torch.randn(4, 16, requires_grad=True))


RECOMPILE_CASES = [
    ("per_block_scales", per_block_scales),
]
