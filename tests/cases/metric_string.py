"""A loss module that keeps a human-readable summary of its last value."""
import torch
import torch.nn as nn


class SummarizedMSE(nn.Module):
    def __init__(self):
        super().__init__()
        self.summary = ""

    def forward(self, pred, target):
        err = (pred - target).pow(2)
        loss = err.mean()
        self.summary = "mse={:.3f} max={:.3f}".format(loss, err.max())
        self.tag = f"{loss:.2f}"
        return loss


CASES = [("SummarizedMSE", SummarizedMSE, lambda: (torch.randn(4, 3), torch.randn(4, 3)))]
