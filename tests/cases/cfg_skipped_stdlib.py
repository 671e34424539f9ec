"""Standard-library helpers called from forward: inspect.signature to adapt to a layer's
arguments, traceback.format_stack for a debug trail, and a functools.lru_cache'd table builder."""
import functools
import inspect
import traceback

import torch
import torch.nn as nn


@functools.lru_cache(maxsize=None)
def causal_offsets(length: int):
    return tuple(range(-length + 1, 1))


class SignatureAwareBlock(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, 2, batch_first=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        params = inspect.signature(self.attn.forward).parameters
        kwargs = {"need_weights": False} if "need_weights" in params else {}
        return self.attn(x, x, x, **kwargs)[0]


class TracedDebugBlock(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        trail = traceback.format_stack(limit=2)
        h = self.fc(x)
        return h, len(trail)


class CachedOffsets(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        offsets = causal_offsets(x.shape[1])
        bias = torch.tensor(offsets, dtype=x.dtype)
        return self.fc(x) + bias[None, :, None]


CASES = [
    ("SignatureAwareBlock", SignatureAwareBlock, lambda: (torch.randn(2, 4, 8),)),
    ("TracedDebugBlock", TracedDebugBlock, lambda: (torch.randn(2, 8),)),
    ("CachedOffsets", CachedOffsets, lambda: (torch.randn(2, 4, 8),)),
]
