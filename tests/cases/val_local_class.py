"""A helper class written inside forward, as quick experiments do: dynamo 2.13 cannot build
a class at run time and splits the graph there; the same class at module level traces."""
import torch
import torch.nn as nn


class InlineScaler(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        class Scale:
            def __init__(self, factor):
                self.factor = factor

            def __call__(self, t):
                return t * self.factor

        h = self.fc(x)
        return Scale(0.5)(h) + h


class Scale:
    def __init__(self, factor):
        self.factor = factor

    def __call__(self, t):
        return t * self.factor


class ModuleLevelScaler(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        return Scale(0.5)(h) + h


CASES = [
    ("InlineScaler", InlineScaler, lambda: (torch.randn(2, 8),)),
    ("ModuleLevelScaler", ModuleLevelScaler, lambda: (torch.randn(2, 8),)),
]
