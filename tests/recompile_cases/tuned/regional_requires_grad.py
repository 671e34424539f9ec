"""Identical blocks compiled one by one: the first block's input does not require grad, the
later ones' do (they come out of a block with parameters), so the block's forward recompiles
once; with an input that requires grad from the start it compiles once."""
import torch
import torch.nn as nn


class PlainBlock(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        return x + torch.relu(self.fc(x))


class Tower(nn.Module):
    def __init__(self, depth: int = 4, width: int = 16):
        super().__init__()
        self.blocks = nn.ModuleList([PlainBlock(width) for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


def data_input():
    model = Tower()
    for block in model.blocks:
        block.compile()
    model(torch.randn(4, 16))


def input_requires_grad():
    model = Tower()
    for block in model.blocks:
        block.compile()
    model(torch.randn(4, 16, requires_grad=True))


def inference_input():
    model = Tower()
    for block in model.blocks:
        block.compile()
    with torch.no_grad():
        model(torch.randn(4, 16))


RECOMPILE_CASES = [
    ("data_input", data_input),
    ("input_requires_grad", input_requires_grad),
    ("inference_input", inference_input),
]
