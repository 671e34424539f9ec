"""Feed-forward blocks whose activation is picked by name from a registry, as transformers does.

`ACT2FN` maps a name to an activation class, or to a class and its arguments; indexing it
builds the module. The "relu_stats" activation prints the share of dead units, which needs the
tensor's value; the clipped GELU is configured by its registry entry.
"""
from collections import OrderedDict

import torch
from torch import nn


class ClippedGELUActivation(nn.Module):
    def __init__(self, min: float, max: float):
        super().__init__()
        self.min = min
        self.max = max

    def forward(self, x):
        return torch.clip(nn.functional.gelu(x), self.min, self.max)


class ReLUWithStats(nn.Module):
    def forward(self, x):
        out = torch.relu(x)
        print(f"dead units: {(out == 0).float().mean().item():.1%}")
        return out


class ClassInstantier(OrderedDict):
    def __getitem__(self, key):
        content = super().__getitem__(key)
        cls, kwargs = content if isinstance(content, tuple) else (content, {})
        return cls(**kwargs)


ACT2CLS = {
    "gelu": nn.GELU,
    "gelu_10": (ClippedGELUActivation, {"min": -10, "max": 10}),
    "relu_stats": ReLUWithStats,
}
ACT2FN = ClassInstantier(ACT2CLS)


class FeedForward(nn.Module):
    def __init__(self, dim: int, hidden_act: str = "gelu"):
        super().__init__()
        self.up = nn.Linear(dim, 4 * dim)
        self.act = ACT2FN[hidden_act]
        self.down = nn.Linear(4 * dim, dim)

    def forward(self, x):
        return self.down(self.act(self.up(x)))


class ProbedFeedForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.ffn = FeedForward(16, hidden_act="relu_stats")

    def forward(self, x):
        return self.ffn(x)


class ClippedFeedForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.ffn = FeedForward(16, hidden_act="gelu_10")

    def forward(self, x):
        return self.ffn(x)


CASES = [
    ("ProbedFeedForward", ProbedFeedForward, lambda: (torch.randn(2, 16),)),
    ("ClippedFeedForward", ClippedFeedForward, lambda: (torch.randn(2, 16),)),
    ("FeedForward-gelu", lambda: FeedForward(16), lambda: (torch.randn(2, 16),)),
]
