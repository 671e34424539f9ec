"""Assertions in forward: on shapes and dtypes (decided while tracing), on a tensor's value,
and with a message formatted from the input."""
import torch
import torch.nn as nn


class PatchEmbed(nn.Module):
    def __init__(self, patch=4, dim=8):
        super().__init__()
        self.patch = patch
        self.proj = nn.Conv2d(3, dim, patch, stride=patch)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        assert x.dim() == 4, f"expected NCHW input, got {x.dim()} dims"
        assert x.shape[-1] % self.patch == 0 and x.shape[-2] % self.patch == 0
        assert x.dtype.is_floating_point
        return self.proj(x).flatten(2).transpose(1, 2)


class NormalizedInput(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        assert torch.isfinite(x).all(), "non-finite input"
        return self.fc(x)


class WeightedPool(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.score = nn.Linear(dim, 1)

    def forward(self, x: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
        assert weights.shape == x.shape[:2], "one weight per token"
        assert (weights >= 0).all().item(), "weights must be non-negative"
        return (x * weights[..., None]).sum(1)


CASES = [
    ("PatchEmbed", PatchEmbed, lambda: (torch.randn(1, 3, 8, 8),)),
    ("NormalizedInput", NormalizedInput, lambda: (torch.randn(2, 8),)),
    ("WeightedPool", WeightedPool, lambda: (torch.randn(2, 5, 8), torch.rand(2, 5))),
]
