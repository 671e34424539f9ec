"""A decoder whose blocks each hold a float gate and a use-attention flag, compiled block by
block; a variant with one shared gate value."""
import torch
import torch.nn as nn


class GatedBlock(nn.Module):
    def __init__(self, gate: float, width: int = 16):
        super().__init__()
        self.gate = gate
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        return x + self.gate * self.fc(x)


class Decoder(nn.Module):
    def __init__(self, gates, width: int = 16):
        super().__init__()
        self.layers = nn.ModuleList([GatedBlock(g, width) for g in gates])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


def distinct_gates():
    model = Decoder([0.1, 0.2, 0.3])
    for layer in model.layers:
        layer.compile()
    model(torch.randn(2, 16, requires_grad=True))


def shared_gate():
    model = Decoder([0.5, 0.5, 0.5])
    for layer in model.layers:
        layer.compile()
    model(torch.randn(2, 16, requires_grad=True))


def distinct_gates_whole():
    model = torch.compile(Decoder([0.1, 0.2, 0.3]))
    model(torch.randn(2, 16))


RECOMPILE_CASES = [
    ("distinct_gates", distinct_gates),
    ("shared_gate", shared_gate),
    ("distinct_gates_whole", distinct_gates_whole),
]
