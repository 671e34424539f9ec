"""A backbone base class that keeps a log of input resolutions, and two trunks built on it."""
import logging

import torch
import torch.nn as nn

logger = logging.getLogger(__name__)


class LoggedTrunk(nn.Module):
    def __init__(self):
        super().__init__()
        self._seen_resolutions = set()

    def note_resolution(self, x):
        resolution = tuple(x.shape[-2:])
        if resolution not in self._seen_resolutions:
            self._seen_resolutions.add(resolution)
            logger.info("new input resolution %s", resolution)

    def forward(self, x):
        self.note_resolution(x)
        return self.features(x)

    def features(self, x):
        raise NotImplementedError


class PatchTrunk(LoggedTrunk):
    def __init__(self, patch=4, dim=16):
        super().__init__()
        self.embed = nn.Conv2d(3, dim, patch, stride=patch)
        self.norm = nn.LayerNorm(dim)

    def features(self, x):
        return self.norm(self.embed(x).flatten(2).transpose(1, 2))


class DebugAwareTrunk(nn.Module):
    """Dumps intermediate feature statistics when debug logging is on."""

    def __init__(self, dim=16):
        super().__init__()
        self.conv = nn.Conv2d(3, dim, 3, padding=1)
        self.head = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.conv(x).relu()
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug("feature mean %.4f", h.mean())
        return self.head(h.mean((2, 3)))


CASES = [
    ("PatchTrunk", PatchTrunk, lambda: (torch.randn(2, 3, 16, 16),)),
    ("DebugAwareTrunk", DebugAwareTrunk, lambda: (torch.randn(2, 3, 8, 8),)),
]
