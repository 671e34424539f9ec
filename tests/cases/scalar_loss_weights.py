"""Losses mixed with learnable or buffered weights that are read as Python numbers."""
import torch
from torch import nn
from torch.nn import functional as F


class BlendedLoss(nn.Module):
    """Blends cross-entropy and MSE with a learnable mixing weight (kept out of autograd)."""

    def __init__(self, classes=4):
        super().__init__()
        self.mix = nn.Parameter(torch.tensor(0.3))
        self.classes = classes

    def forward(self, logits, target):
        w = self.mix.item()
        ce = F.cross_entropy(logits, target)
        mse = F.mse_loss(logits.softmax(-1), F.one_hot(target, self.classes).float())
        return w * ce + (1 - w) * mse


class EMAMixer(nn.Module):
    """Mixes a fast and a slow branch with a decay stored as a buffer."""

    def __init__(self, dim=8):
        super().__init__()
        self.fast = nn.Linear(dim, dim)
        self.slow = nn.Linear(dim, dim)
        self.register_buffer("decay", torch.tensor(0.9))

    def forward(self, x):
        decay = float(self.decay)
        return decay * self.slow(x) + (1 - decay) * self.fast(x)


class MarginRanking(nn.Module):
    """Ranking loss whose margin adapts to the mean positive score."""

    def forward(self, pos, neg):
        margin = 0.5 * pos.mean().item()
        gap = neg.max().item()
        return F.relu(margin - pos + neg).mean() + 0.0 * gap * pos.sum()


CASES = [
    ("BlendedLoss", BlendedLoss, lambda: (torch.randn(6, 4), torch.randint(0, 4, (6,)))),
    ("EMAMixer", EMAMixer, lambda: (torch.randn(3, 8),)),
    ("MarginRanking", MarginRanking, lambda: (torch.rand(5), torch.rand(5))),
]
