"""any()/all() over a list of tensor conditions built in forward, and over a list of static
flags from the configuration (which dynamo specialises on)."""
import torch
import torch.nn as nn


class AnyHeadActive(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.heads = nn.ModuleList([nn.Linear(dim, dim) for _ in range(2)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        outs = [head(x) for head in self.heads]
        if all([out.mean() > 0 for out in outs]):
            return outs[0]
        return outs[1]


class AnyHeadEnabled(nn.Module):
    def __init__(self, dim=8, enabled=(True, False)):
        super().__init__()
        self.heads = nn.ModuleList([nn.Linear(dim, dim) for _ in range(2)])
        self.enabled = list(enabled)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if any([flag for flag in self.enabled]):
            return self.heads[0](x)
        return self.heads[1](x)


CASES = [
    ("AnyHeadActive", AnyHeadActive, lambda: (torch.randn(2, 8),)),
    ("AnyHeadEnabled", AnyHeadEnabled, lambda: (torch.randn(2, 8),)),
]
