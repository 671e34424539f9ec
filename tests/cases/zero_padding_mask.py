"""Zeroes padded frames and clips outliers in place before a temporal convolution."""
import torch
import torch.nn as nn


class PaddedConv1d(nn.Module):
    def __init__(self, channels=6, clip=3.0):
        super().__init__()
        self.clip = clip
        self.conv = nn.Conv1d(channels, channels, 3, padding=1)

    def forward(self, x, padding_mask):
        x = x.clone()
        x[padding_mask] = 0
        x[x.abs() > self.clip] = self.clip
        x.masked_fill_(x.isnan(), 0.0)
        return self.conv(x.transpose(1, 2)).transpose(1, 2)


def _inputs():
    pad = torch.zeros(2, 7, dtype=torch.bool)
    pad[1, 5:] = True
    return torch.randn(2, 7, 6) * 2, pad


CASES = [("PaddedConv1d", PaddedConv1d, _inputs)]
