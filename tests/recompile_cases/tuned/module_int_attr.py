"""A module int attribute the training loop changes between calls (a curriculum depth): int
attributes of an nn.Module are static, so each new value recompiles."""
import torch
import torch.nn as nn


class CurriculumNet(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.layer = nn.Linear(width, width)
        self.active_steps = 1

    def forward(self, x):
        for _ in range(self.active_steps):
            x = self.layer(x).relu()
        return x


def growing_curriculum():
    model = CurriculumNet()
    compiled = torch.compile(model)
    x = torch.randn(4, 16)
    for stage in range(1, 5):
        model.active_steps = stage
        compiled(x)


def fixed_curriculum():
    model = CurriculumNet()
    compiled = torch.compile(model)
    x = torch.randn(4, 16)
    for _ in range(4):
        compiled(x)


RECOMPILE_CASES = [
    ("growing_curriculum", growing_curriculum),
    ("fixed_curriculum", fixed_curriculum),
]
