"""Early exits on a tensor's value: a block returns its input unchanged when the correction it
applies is not needed, and applies it otherwise. Each `if` on the reduced value breaks."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class SoftClip(nn.Module):
    """Soft-clips the projection with tanh, but only once some activation exceeds the limit."""

    def __init__(self, dim=16, limit=3.0):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.limit = limit

    def forward(self, x):
        h = self.proj(x)
        if h.abs().max() <= self.limit:
            return h
        return self.limit * torch.tanh(h / self.limit)


class FiniteGuard(nn.Module):
    """Replaces NaN and inf activations after a layer, passing clean batches through."""

    def __init__(self, dim=16):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.fc(x)
        if torch.isfinite(h).all():
            return h
        return torch.nan_to_num(h, nan=0.0, posinf=1e4, neginf=-1e4)


class MarginTemperature(nn.Module):
    """Sharpens the logits when the classifier is unsure (small mean top-2 margin)."""

    def __init__(self, dim=16, classes=8):
        super().__init__()
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        logits = self.head(x)
        top = logits.topk(2, dim=-1).values
        margin = (top[..., 0] - top[..., 1]).mean()
        if margin > 0.5:
            return logits
        return logits * 2.0


class DampedResidual(nn.Module):
    """Halves a large residual update instead of adding it whole."""

    def __init__(self, dim=16):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        update = F.gelu(self.fc(x))
        if update.norm() < 4.0:
            return x + update
        else:
            return x + 0.5 * update


class ZeroRowShortcut(nn.Module):
    """A padded batch of all zeros skips the activation; otherwise it is applied."""

    def __init__(self, dim=16):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.fc(x)
        if not x.any():
            return h
        return F.silu(h)


class SkipEmptyBatch(nn.Module):
    """Returns an all-zero batch as it is, without running the layer."""

    def __init__(self, dim=16):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        if x.abs().sum() == 0:
            return x
        return self.fc(x)


CASES = [
    ("SoftClip-small", SoftClip, lambda: (torch.randn(4, 16) * 0.1,)),
    ("SoftClip-large", SoftClip, lambda: (torch.randn(4, 16) * 20.0,)),
    ("FiniteGuard-clean", FiniteGuard, lambda: (torch.randn(4, 16),)),
    ("FiniteGuard-nan", FiniteGuard, lambda: (torch.tensor([float("nan")] * 16).repeat(4, 1),)),
    ("MarginTemperature", MarginTemperature, lambda: (torch.randn(6, 16),)),
    ("DampedResidual-small", DampedResidual, lambda: (torch.randn(2, 16) * 0.1,)),
    ("DampedResidual-large", DampedResidual, lambda: (torch.randn(8, 16) * 5.0,)),
    ("ZeroRowShortcut-zeros", ZeroRowShortcut, lambda: (torch.zeros(3, 16),)),
    ("ZeroRowShortcut", ZeroRowShortcut, lambda: (torch.randn(3, 16),)),
    ("SkipEmptyBatch", SkipEmptyBatch, lambda: (torch.randn(3, 16),)),
]
