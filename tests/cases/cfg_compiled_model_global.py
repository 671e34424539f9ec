"""A script that compiles its model at module level with fullgraph=True, next to a model it
compiles with the defaults."""
import torch
import torch.nn as nn


class PeakNormalizer(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        return h / (h.abs().max().item() + 1.0)


class MeanNormalizer(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        return h - h.mean().item()


model = torch.compile(PeakNormalizer(), fullgraph=True)
baseline = torch.compile(MeanNormalizer())

CASES = [
    ("PeakNormalizer", lambda: model, lambda: (torch.randn(2, 8),)),
    ("MeanNormalizer", lambda: baseline, lambda: (torch.randn(2, 8),)),
]
