"""Normalisation and robust regression losses that read statistics with .item() / float()."""
import warnings

import torch
from torch import nn


class LearnedEpsRMSNorm(nn.Module):
    """RMSNorm whose epsilon is a learnable (log-parametrised) scalar."""

    def __init__(self, dim=8):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = nn.Parameter(torch.tensor(1e-5))

    def forward(self, x):
        if x.dim() > 3:
            warnings.warn("RMSNorm input has more than three dimensions; normalising the last one")
        eps = float(self.eps)
        return self.weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)


class AdaptiveHuberLoss(nn.Module):
    """Huber loss whose threshold is the batch's median absolute error."""

    def forward(self, pred, target):
        err = pred - target
        delta = err.abs().median().item()
        quadratic = 0.5 * err ** 2
        linear = delta * (err.abs() - 0.5 * delta)
        return torch.where(err.abs() < delta, quadratic, linear).mean()


class ContrastNormalize(nn.Module):
    """Per-batch contrast normalisation of images."""

    def forward(self, images):
        if images.shape[1] != 3:
            warnings.warn(f"expected RGB images, got {images.shape[1]} channels")
        mean = images.mean().item()
        std = images.std().item()
        return (images - mean) / (std + 1e-6)


CASES = [
    ("LearnedEpsRMSNorm", LearnedEpsRMSNorm, lambda: (torch.randn(2, 2, 3, 8),)),
    ("AdaptiveHuberLoss", AdaptiveHuberLoss, lambda: (torch.randn(10), torch.randn(10))),
    ("ContrastNormalize", ContrastNormalize, lambda: (torch.rand(2, 1, 6, 6),)),
]
