"""Grad mode toggled between calls (evaluation under no_grad inside a training loop): the
global grad mode is guarded, so the first no_grad call recompiles; the mode never changing
compiles once."""
import torch
import torch.nn as nn


class Regressor(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.fc = nn.Linear(width, 1)

    def forward(self, x):
        return self.fc(x).squeeze(-1)


def train_then_eval():
    model = torch.compile(Regressor())
    x = torch.randn(4, 16)
    for step in range(4):
        if step % 2 == 0:
            model(x).sum().backward()
        else:
            with torch.no_grad():
                model(x)


def always_no_grad():
    model = torch.compile(Regressor())
    x = torch.randn(4, 16)
    with torch.no_grad():
        for _ in range(4):
            model(x)


def no_grad_then_inference_mode():
    model = torch.compile(Regressor())
    x = torch.randn(4, 16)
    with torch.no_grad():
        model(x)
    with torch.inference_mode():
        model(x)


RECOMPILE_CASES = [
    ("train_then_eval", train_then_eval),
    ("always_no_grad", always_no_grad),
    ("no_grad_then_inference_mode", no_grad_then_inference_mode),
]
