"""Sequence models that warn about truncation and padding, as Hugging Face models do."""
import warnings

import torch
from torch import nn


class TruncatingEncoder(nn.Module):
    def __init__(self, vocab=30, dim=8, max_positions=6):
        super().__init__()
        self.max_positions = max_positions
        self.embed = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.zeros(max_positions, dim))

    def forward(self, input_ids):
        if input_ids.shape[1] > self.max_positions:
            warnings.warn(f"input of length {input_ids.shape[1]} is truncated to {self.max_positions} tokens")
            input_ids = input_ids[:, : self.max_positions]
        if input_ids.dtype != torch.long:
            warnings.warn("input_ids should be int64", stacklevel=2)
        h = self.embed(input_ids) + self.pos[: input_ids.shape[1]]
        return h.mean(1)


class PaddedPooler(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, hidden, mask=None):
        if mask is None:
            warnings.warn("no attention mask given; padding tokens are pooled too")
            mask = torch.ones(hidden.shape[:2])
        if hidden.shape[1] == 1:
            warnings.warn("pooling a single token", RuntimeWarning)
        pooled = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
        return self.proj(pooled)


CASES = [
    ("TruncatingEncoder", TruncatingEncoder, lambda: (torch.randint(0, 30, (2, 9)).int(),)),
    ("PaddedPooler", PaddedPooler, lambda: (torch.randn(2, 1, 8),)),
]
