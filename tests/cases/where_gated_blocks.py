"""Blocks that pick an activation or a rescaling from the data, written with Python if/else."""
import torch
from torch import nn
from torch.nn import functional as F


class SignGatedActivation(nn.Module):
    """Chooses a smooth or a hard activation depending on the batch's mean pre-activation."""

    def __init__(self, dim=16):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.fc(x)
        if h.mean() > 0:
            h = F.gelu(h)
        else:
            h = torch.tanh(h)
        return self.out(h)


class NormClipper(nn.Module):
    """Rescales features whose largest magnitude exceeds a bound (gradient-clipping style)."""

    def __init__(self, dim=16, max_abs=1.5):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.max_abs = max_abs

    def forward(self, x):
        y = self.proj(x)
        if y.abs().max() > self.max_abs:
            y = y * 0.5
        z = y.sigmoid()
        if z.sum() < 10:
            z = z + 0.1
        return y, z


class AdaptiveResidual(nn.Module):
    """Residual mixing whose weights depend on the sign of the mean update."""

    def __init__(self, dim=16):
        super().__init__()
        self.f = nn.Linear(dim, dim)

    def forward(self, x):
        u = self.f(x)
        mixed = x + 0.5 * u if u.mean() > 0 else x - 0.5 * u
        if (u * x).sum() < 0:
            gate = torch.sigmoid(u + x)
            scale = (u + x).abs()
        else:
            gate = torch.sigmoid(u - x)
            scale = (u - x).abs()
        return mixed * gate * scale


CASES = [
    ("SignGatedActivation", SignGatedActivation, lambda: (torch.randn(4, 16),)),
    ("NormClipper", NormClipper, lambda: (torch.randn(4, 16) * 3,)),
    ("AdaptiveResidual", AdaptiveResidual, lambda: (torch.randn(3, 16),)),
]
