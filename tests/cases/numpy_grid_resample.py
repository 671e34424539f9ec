"""Latitude resampling whose grid is precomputed with numpy in `__init__`.

`PoleAwareResample` keeps numpy's answer to "do the output latitudes reach past the input
grid?" as an `np.bool`; `CheckedResample` turns it into a Python bool first.
"""
import math

import numpy as np
import torch
import torch.nn as nn


def equiangular_latitudes(nlat):
    nodes = np.cos(np.linspace(np.pi, 0, nlat))
    return np.flip(np.arccos(nodes)).copy()


class PoleAwareResample(nn.Module):
    def __init__(self, nlat_in=8, nlat_out=6):
        super().__init__()
        lats_in = equiangular_latitudes(nlat_in)
        lats_out = equiangular_latitudes(nlat_out) * 1.2 - 0.1 * math.pi
        self.expand_poles = (lats_out > lats_in[-1]).any() or (lats_out < lats_in[0]).any()
        self.proj = nn.Linear(nlat_in, nlat_out)

    def forward(self, x):
        if self.expand_poles:
            x = torch.cat([x[..., :1], x, x[..., -1:]], dim=-1)[..., 1:-1]
        return self.proj(x)


class CheckedResample(nn.Module):
    def __init__(self, nlat_in=8, nlat_out=6):
        super().__init__()
        lats_in = equiangular_latitudes(nlat_in)
        lats_out = equiangular_latitudes(nlat_out) * 1.2 - 0.1 * math.pi
        self.expand_poles = bool((lats_out > lats_in[-1]).any() or (lats_out < lats_in[0]).any())
        self.proj = nn.Linear(nlat_in, nlat_out)

    def forward(self, x):
        if self.expand_poles:
            x = torch.cat([x[..., :1], x, x[..., -1:]], dim=-1)[..., 1:-1]
        return self.proj(x)


CASES = [
    ("PoleAwareResample", lambda: PoleAwareResample(), lambda: (torch.randn(2, 3, 8),)),
    ("CheckedResample", lambda: CheckedResample(), lambda: (torch.randn(2, 3, 8),)),
]
