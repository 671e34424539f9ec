"""Decodes a batch in order of decreasing sequence length, as packed RNN decoders expect."""
import torch
import torch.nn as nn


class LengthOrderedPooler(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, lengths):
        order = sorted(lengths, reverse=True)
        longest = order[0]
        weights = torch.stack([torch.full((), 1.0) * n / longest for n in order])
        return self.proj(x.mean(1)) * weights.unsqueeze(-1)


CASES = [("LengthOrderedPooler", LengthOrderedPooler, lambda: (torch.randn(3, 5, 16), torch.tensor([3, 5, 2])))]
