"""A break reached only when an optional input is left out (`if attention_mask is None:`), even
where the body uses the input as a tensor (so the lint once took it as always given); the cases
are named by the call (`-given`, `-none`)."""
import warnings

import torch
import torch.nn as nn


class DefaultMaskPool(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x, attention_mask=None):
        h = self.proj(x)
        if attention_mask is None:
            print("no attention mask: pooling every token")
            attention_mask = torch.ones(h.shape[:2])
        return (h * attention_mask[..., None]).sum(1) / attention_mask.sum(1, keepdim=True)


class CountedLengths(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x, attention_mask=None):
        h = self.proj(x)
        if attention_mask is not None:
            lengths = attention_mask.sum(1)
        else:
            lengths = torch.full((h.shape[0],), h.shape[1])
            warnings.warn("lengths taken from the padded shape")
        return h.sum(1) / lengths[:, None]


class EarlyExit(nn.Module):
    """The None side returns before the masked part, after a break of its own."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x, attention_mask=None):
        h = self.proj(x)
        if attention_mask is None:
            return h[h.sum(-1) > 0].mean(0)
        return (h * attention_mask.float()[..., None]).mean(1)


class BothSidesBreak(nn.Module):
    """Near miss: a break on each side, the same line after them (no label)."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x, attention_mask=None):
        h = self.proj(x)
        if attention_mask is None:
            attention_mask = torch.ones(h.shape[:2])
        scale = attention_mask.sum().item()
        return h.mean(1) / scale


CASES = [
    ("DefaultMaskPool-given", DefaultMaskPool, lambda: (torch.randn(2, 4, 8), torch.tensor([[1.0, 1, 1, 0], [1, 1, 0, 0]]))),
    ("DefaultMaskPool-none", DefaultMaskPool, lambda: (torch.randn(2, 4, 8),)),
    ("CountedLengths-given", CountedLengths, lambda: (torch.randn(2, 4, 8), torch.tensor([[1.0, 1, 1, 0], [1, 1, 0, 0]]))),
    ("CountedLengths-none", CountedLengths, lambda: (torch.randn(2, 4, 8),)),
    ("EarlyExit-given", EarlyExit, lambda: (torch.randn(2, 4, 8), torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]]))),
    ("EarlyExit-none", EarlyExit, lambda: (torch.randn(2, 4, 8),)),
    ("BothSidesBreak-given", BothSidesBreak, lambda: (torch.randn(2, 4, 8), torch.ones(2, 4))),
    ("BothSidesBreak-none", BothSidesBreak, lambda: (torch.randn(2, 4, 8),)),
]
