"""A small encoder left with debugging output in forward (held out from fix tuning)."""
import logging

import torch
import torch.nn as nn
import torch.nn.functional as F

log = logging.getLogger(__name__)


class DebugEncoder(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        h = self.proj(x)
        print("proj out", h)
        h = F.gelu(self.norm(h))
        print("shape after norm", h.shape)
        log.debug("encoder output %s", h.mean())
        return h


class StatsHead(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.fc = nn.Linear(dim, 4)

    def forward(self, x):
        logits = self.fc(x)
        scale = logits.abs().max().item()
        print("max logit", scale)
        return logits / (scale + 1e-6)


CASES = [
    ("DebugEncoder", DebugEncoder, lambda: (torch.randn(4, 16),)),
    ("StatsHead", StatsHead, lambda: (torch.randn(4, 16),)),
]
