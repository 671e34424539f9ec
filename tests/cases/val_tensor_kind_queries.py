"""Input normalisation that asks what kind of tensor it got: is_floating_point, is_complex,
torch.is_tensor and device.type are known at trace time, so branching on them traces; the
branch that follows on the converted data does not."""
import torch
import torch.nn as nn


class ToFloatInput(nn.Module):
    def __init__(self, dim=4):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x) -> torch.Tensor:
        if not torch.is_tensor(x):
            x = torch.as_tensor(x)
        if not x.is_floating_point():
            x = x.float() / 255.0
        return self.proj(x)


class MagnitudeIfComplex(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.is_complex():
            x = x.abs()
        if x.device.type == "cpu":
            x = x.contiguous()
        return x * 2


class CpuRangeCheck(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.device.type == "cpu" and not x.is_floating_point():
            x = x.float()
        if x.min() < 0:
            x = x - x.min()
        return x


CASES = [
    ("ToFloatInput", ToFloatInput, lambda: (torch.randint(0, 255, (2, 4)),)),
    ("MagnitudeIfComplex", MagnitudeIfComplex, lambda: (torch.randn(2, 4),)),
    ("CpuRangeCheck", CpuRangeCheck, lambda: (torch.randint(-3, 3, (2, 4)),)),
]
