"""Kernel dispatch on tensor properties dynamo specialises on: layout, is_cuda, is_sparse are
known at trace time, so the branches fold; the tensor that leaves either branch is still a
tensor, and a .item() or data-dependent branch on it afterwards breaks."""
import torch
import torch.nn as nn


class DenseOrSparse(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.layout == torch.strided:
            h = self.proj(x)
        else:
            h = self.proj(x.to_dense())
        return h.relu()


class DeviceScaledNorm(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.is_cuda:
            scale = x.abs().amax()
        else:
            scale = x.abs().max()
        return x / scale.item()


class DeviceGatedClamp(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.is_cuda or x.is_sparse:
            h = x.float()
        else:
            h = x * 1.0
        if h.max() > 1.0:
            h = h.clamp(max=1.0)
        return h


CASES = [
    ("DenseOrSparse", DenseOrSparse, lambda: (torch.randn(2, 8),)),
    ("DeviceScaledNorm", DeviceScaledNorm, lambda: (torch.randn(2, 8),)),
    ("DeviceGatedClamp", DeviceGatedClamp, lambda: (torch.randn(2, 8) * 2,)),
]
