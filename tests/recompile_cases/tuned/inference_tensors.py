"""Tensors made under torch.inference_mode() are inference tensors: dynamo guards a tensor's
dispatch keys, so a compiled model fed its own output made in inference mode, after a normal
tensor, compiles again; a start tensor made in inference mode too, or no_grad, does not."""
import torch
import torch.nn as nn


class Step(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.proj = nn.Linear(width, width)

    def forward(self, x):
        return x - 0.1 * torch.tanh(self.proj(x))


def normal_start_inference_loop():
    model = torch.compile(Step())
    x = torch.randn(2, 16)
    with torch.inference_mode():
        for _ in range(3):
            x = model(x)


def inference_start_inference_loop():
    model = torch.compile(Step())
    with torch.inference_mode():
        x = torch.randn(2, 16)
        for _ in range(3):
            x = model(x)


def no_grad_loop():
    model = torch.compile(Step())
    x = torch.randn(2, 16)
    with torch.no_grad():
        for _ in range(3):
            x = model(x)


RECOMPILE_CASES = [
    ("normal_start_inference_loop", normal_start_inference_loop),
    ("inference_start_inference_loop", inference_start_inference_loop),
    ("no_grad_loop", no_grad_loop),
]
