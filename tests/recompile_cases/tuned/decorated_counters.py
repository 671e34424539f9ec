"""A counter in a decorated forward: under @torch.compiler.disable dynamo never compiles it (no
recompile); under @torch.no_grad() or @torch.inference_mode() dynamo compiles torch's wrapper,
which inlines forward and guards the counter."""
import torch
from torch import nn


class DisabledCounter(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.step = 0

    @torch.compiler.disable
    def forward(self, x):
        self.step += 1
        return self.fc(x)


class NoGradCounter(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.step = 0

    @torch.no_grad()
    def forward(self, x):
        self.step += 1
        return self.fc(x) * self.step


class InferenceCounter(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.step = 0

    @torch.inference_mode()
    def forward(self, x):
        self.step += 1
        return self.fc(x) * self.step


def disabled_counter():
    model = torch.compile(DisabledCounter())
    x = torch.randn(2, 4)
    for _ in range(4):
        model(x)


def no_grad_counter():
    model = torch.compile(NoGradCounter())
    x = torch.randn(2, 4)
    for _ in range(4):
        model(x)


def inference_counter():
    model = torch.compile(InferenceCounter())
    x = torch.randn(2, 4)
    for _ in range(4):
        model(x)


RECOMPILE_CASES = [
    ("disabled_counter", disabled_counter),
    ("no_grad_counter", no_grad_counter),
    ("inference_counter", inference_counter),
]
