"""An activation function passed per call: dynamo guards on the function object, so a second
function recompiles; a fresh lambda with the same code does not."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class GatedUnit(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x, activation):
        return activation(self.fc(x))


def two_activations():
    model = torch.compile(GatedUnit())
    x = torch.randn(4, 16)
    for activation in [F.relu, F.gelu, F.relu]:
        model(x, activation)


def fresh_lambdas():
    model = torch.compile(GatedUnit())
    x = torch.randn(4, 16)
    for _ in range(3):
        model(x, lambda t: t * 2)


RECOMPILE_CASES = [
    ("two_activations", two_activations),
    ("fresh_lambdas", fresh_lambdas),
]
