"""Masked losses and token pooling (held out from fix tuning)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class MaskedMSE(nn.Module):
    def forward(self, pred, target, valid: torch.BoolTensor):
        err = (pred - target) ** 2
        return err[valid].mean()


class TokenPool(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, tokens, keep_mask: torch.BoolTensor):
        h = self.fc(tokens)
        return h[keep_mask].sum(0)


class ActiveFraction(nn.Module):
    def forward(self, x):
        active = torch.nonzero(x > 0.1).shape[0]
        return x * active / x.numel()


class Clipped(nn.Module):
    def forward(self, x):
        big = x.abs() > 2.0
        y = torch.tanh(x)
        y[big] = x[big]
        return y


class SelectedLogits(nn.Module):
    def forward(self, logits, labels):
        keep = labels != -100
        return F.cross_entropy(logits[keep], labels[keep])


CASES = [
    ("MaskedMSE", MaskedMSE, lambda: (torch.randn(4, 5), torch.randn(4, 5), torch.rand(4, 5) > 0.5)),
    ("TokenPool", TokenPool, lambda: (torch.randn(2, 6, 8), torch.rand(2, 6) > 0.3)),
    ("ActiveFraction", ActiveFraction, lambda: (torch.randn(4, 5),)),
    ("Clipped", Clipped, lambda: (torch.randn(4, 5) * 3,)),
    ("SelectedLogits", SelectedLogits, lambda: (torch.randn(6, 3), torch.tensor([0, 1, -100, 2, -100, 1]))),
]
