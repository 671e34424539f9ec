"""Blocks that branch on their own index: one compiled model specialises once, but compiling
each block on its own (regional compilation) recompiles the block's forward per distinct
index value it reads."""
import torch
import torch.nn as nn


class AlternatingBlock(nn.Module):
    def __init__(self, layer_idx: int, width: int = 16):
        super().__init__()
        self.layer_idx = layer_idx
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        if self.layer_idx % 2 == 0:
            return x + self.fc(x)
        return x + torch.tanh(self.fc(x))


class Stack(nn.Module):
    def __init__(self, depth: int = 4, width: int = 16):
        super().__init__()
        self.blocks = nn.ModuleList([AlternatingBlock(i, width) for i in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


def whole_model():
    model = torch.compile(Stack())
    x = torch.randn(4, 16)
    for _ in range(2):
        model(x)


def per_block():
    model = Stack()
    for block in model.blocks:
        block.compile()
    x = torch.randn(4, 16)
    for _ in range(2):
        model(x)


RECOMPILE_CASES = [
    ("whole_model", whole_model),
    ("per_block", per_block),
]
