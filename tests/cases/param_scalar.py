"""Layers that read learnable scalars back as Python numbers."""
import torch
from torch import nn


class FocalLoss(nn.Module):
    def __init__(self, gamma=2.0, learn_gamma=True):
        super().__init__()
        self.gamma = nn.Parameter(torch.tensor(gamma), requires_grad=learn_gamma)

    def forward(self, logits, targets):
        p = torch.sigmoid(logits)
        pt = torch.where(targets > 0, p, 1 - p)
        gamma = float(self.gamma)
        loss = -((1 - pt) ** gamma) * torch.log(pt.clamp_min(1e-6))
        return loss.mean()


class SaturationGuard(nn.Module):
    def __init__(self, limit=4.0):
        super().__init__()
        self.limit = limit

    def forward(self, x):
        saturated = bool((x.abs() > self.limit).any())
        if saturated:
            x = x.clamp(-self.limit, self.limit)
        return x


CASES = [
    ("FocalLoss", FocalLoss, lambda: (torch.randn(6, 3), (torch.rand(6, 3) > 0.5).float())),
    ("SaturationGuard", SaturationGuard, lambda: (torch.randn(3, 5) * 3,)),
]
