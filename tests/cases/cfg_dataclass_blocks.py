"""An MLP tower configured by a dataclass, as research code writes its configs.

The tower's depth and its debug switch come from the config: the blocks are built in a loop over
`config.depth`, and the debug switch prints the activation scale after each block.
"""
from dataclasses import dataclass, field

import torch
from torch import nn


@dataclass
class TowerConfig:
    dim: int = 16
    depth: int = 2
    debug: bool = False
    dropout: float = field(default=0.0)

    def __post_init__(self):
        self.hidden = self.dim * 2


class Block(nn.Module):
    def __init__(self, config: TowerConfig):
        super().__init__()
        self.up = nn.Linear(config.dim, config.hidden)
        self.down = nn.Linear(config.hidden, config.dim)
        self.drop = nn.Dropout(config.dropout)

    def forward(self, x):
        return x + self.drop(self.down(torch.relu(self.up(x))))


class Tower(nn.Module):
    def __init__(self, config: TowerConfig | None = None):
        super().__init__()
        self.config = config or TowerConfig()
        self.blocks = nn.ModuleList([Block(self.config) for _ in range(self.config.depth)])

    def forward(self, x):
        for index, block in enumerate(self.blocks):
            x = block(x)
            if self.config.debug:
                print(f"block {index}: scale {x.abs().mean()}")
        return x


CASES = [
    ("Tower-default", Tower, lambda: (torch.randn(4, 16),)),
    ("Tower-debug", lambda: Tower(TowerConfig(depth=3, debug=True)), lambda: (torch.randn(4, 16),)),
]
