"""Debug prints left inside grad-mode and autocast blocks, and recurrent / random layers after a stem.

dynamo 2.13 resumes after a break inside `with torch.no_grad()`, `torch.enable_grad()` and
`torch.autocast(...)`; an LSTM call or Python arithmetic on a random number compiles the graph
traced before it and runs the rest of the function eagerly.
"""
import random

import torch
from torch import nn


class EMAStatsProbe(nn.Module):
    """Logs running statistics of the features without tracking gradients."""

    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.proj(x).relu()
        with torch.no_grad():
            stats = h.mean(0)
            print("feature mean", stats)
            stats = stats * 0.9
        return h + stats


class MixedPrecisionHead(nn.Module):
    """Runs the head under autocast and prints the logits' range."""

    def __init__(self, dim=8, classes=4):
        super().__init__()
        self.body = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        h = self.body(x).tanh()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = self.head(h)
            print("logits", logits.min(), logits.max())
            logits = logits.float().softmax(-1)
        return logits


class InputGradSaliency(nn.Module):
    """Re-enables grad to build a saliency map, printing its norm on the way."""

    def __init__(self, dim=8):
        super().__init__()
        self.score = nn.Linear(dim, 1)

    def forward(self, x):
        x = x * 1.0
        with torch.enable_grad():
            s = self.score(x).sum()
            print("score", s)
            s = s * 2
        return x * s


class StemThenLSTM(nn.Module):
    """A convolutional stem followed by an LSTM: the stem is compiled, the rest runs eagerly."""

    def __init__(self, dim=8):
        super().__init__()
        self.stem = nn.Linear(dim, dim)
        self.rnn = nn.LSTM(dim, dim, batch_first=True)
        self.out = nn.Linear(dim, 2)

    def forward(self, x):
        h = self.stem(x).relu()
        y, _ = self.rnn(h)
        return self.out(y[:, -1])


class RandomTemperature(nn.Module):
    """Scales the logits by a temperature drawn per batch with Python's random module."""

    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        logits = self.proj(x)
        temperature = random.randint(1, 4)
        scaled = logits / (temperature + 0.5)
        return scaled.softmax(-1)


CASES = [
    ("EMAStatsProbe", EMAStatsProbe, lambda: (torch.randn(4, 8),)),
    ("MixedPrecisionHead", MixedPrecisionHead, lambda: (torch.randn(4, 8),)),
    ("InputGradSaliency", InputGradSaliency, lambda: (torch.randn(4, 8),)),
    ("StemThenLSTM", StemThenLSTM, lambda: (torch.randn(2, 5, 8),)),
    ("RandomTemperature", RandomTemperature, lambda: (torch.randn(4, 8),)),
]
