"""Constructs that break in every version, but differently after 2.13: a branch on
random.random() (2.13 skips the call; 2.14 traces it and branches on the value), a function
wrapped by torch.compiler.disable and called inside the compiled code, and max over tensors
with a key that computes on them. Beside each, a near miss."""
import random

import torch
import torch.nn as nn


class RandomFlip(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, images):
        if random.random() < self.p:
            images = images.flip(-1)
        return images * 2


class RandomJitter(nn.Module):
    def forward(self, images):
        shift = random.randint(0, 3)
        return images.roll(shift, -1) * 2


def _eager_norm(t):
    return t / t.norm()


class DisabledInside(nn.Module):
    def forward(self, x):
        y = x.relu()
        z = torch.compiler.disable(_eager_norm)(y)
        return z + 1


class PlainInside(nn.Module):
    def forward(self, x):
        y = x.relu()
        z = _eager_norm(y)
        return z + 1


class BestOutput(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 4)

    def forward(self, x):
        outs = [self.a(x), self.b(x)]
        best = max(outs, key=lambda t: t.mean())
        return best * 2


class StackedOutput(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 4)

    def forward(self, x):
        outs = torch.stack([self.a(x), self.b(x)])
        return outs.max(0).values * 2


CASES = [
    ("RandomFlip", RandomFlip, lambda: (torch.rand(2, 3, 4),)),
    ("RandomJitter", RandomJitter, lambda: (torch.rand(2, 3, 4),)),
    ("DisabledInside", DisabledInside, lambda: (torch.randn(2, 4),)),
    ("PlainInside", PlainInside, lambda: (torch.randn(2, 4),)),
    ("BestOutput", BestOutput, lambda: (torch.randn(2, 4),)),
    ("StackedOutput", StackedOutput, lambda: (torch.randn(2, 4),)),
]
