"""Functional building blocks compiled on their own with torch.compile."""
import torch
import torch.nn as nn
import torch.nn.functional as F


@torch.compile
def soft_clip(x, limit=3.0):
    if x.abs().amax() <= limit:
        return x
    return limit * torch.tanh(x / limit)


@torch.compile
def label_smoothed_nll(logits, target, smoothing=0.1):
    logp = F.log_softmax(logits, dim=-1)
    nll = -logp.gather(-1, target.unsqueeze(-1)).squeeze(-1)
    smooth = -logp.mean(-1)
    return ((1 - smoothing) * nll + smoothing * smooth).mean()


class ClippedRegressor(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        return soft_clip(self.fc(x) * 10)


CASES = [
    ("soft_clip", lambda: soft_clip, lambda: (torch.randn(4, 8) * 10,)),
    ("label_smoothed_nll", lambda: label_smoothed_nll, lambda: (torch.randn(4, 5), torch.tensor([0, 2, 4, 1]))),
    ("ClippedRegressor", ClippedRegressor, lambda: (torch.randn(4, 8),)),
]
