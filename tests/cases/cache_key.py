"""ALiBi attention bias with a per-slope cache of bias tables."""
import torch
import torch.nn as nn


class ALiBiBias(nn.Module):
    def __init__(self, heads=4):
        super().__init__()
        self.slope_scale = nn.Parameter(torch.ones(()))
        self.register_buffer("slopes", 2.0 ** (-8.0 * torch.arange(1, heads + 1) / heads))
        self._cache = {}

    def bias(self, n):
        key = f"{n}-{self.slope_scale.item():.4f}"
        if key not in self._cache:
            pos = torch.arange(n)
            rel = (pos[None, :] - pos[:, None]).abs().neg().float()
            self._cache[key] = rel[None] * self.slopes[:, None, None]
        return self._cache[key]

    def forward(self, scores):
        return scores + self.slope_scale * self.bias(scores.shape[-1])


CASES = [("ALiBiBias", ALiBiBias, lambda: (torch.randn(2, 4, 6, 6),))]
