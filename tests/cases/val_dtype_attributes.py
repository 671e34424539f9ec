"""Precision helpers that read dtype attributes: dtype.is_floating_point, dtype.itemsize,
torch.is_floating_point(x) and x.dtype == torch.bool are fixed at trace time and branching on
them traces; the scale computed after the upcast is a tensor, and .item() on it breaks."""
import torch
import torch.nn as nn


class BoolToFloat(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dtype == torch.bool:
            x = x.float()
        if not x.dtype.is_floating_point:
            x = x.to(torch.get_default_dtype())
        return x * 2


class NarrowTypeScale(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dtype.itemsize < 4 or not torch.is_floating_point(x):
            x = x.float()
        scale = x.abs().amax()
        return x / scale.item()


CASES = [
    ("BoolToFloat", BoolToFloat, lambda: (torch.rand(2, 3) > 0.5,)),
    ("NarrowTypeScale", NarrowTypeScale, lambda: (torch.randint(0, 5, (2, 3)),)),
]
