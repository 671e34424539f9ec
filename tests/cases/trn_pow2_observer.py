"""Power-of-two fake quantisation for integer-only accelerators.

Scales are restricted to powers of two so the deployed kernel can requantise with a shift;
each quantiser tracks a running absolute maximum and rounds its scale up to the next power
of two that still covers it.
"""
import math

import torch
from torch import nn


class Pow2FakeQuant(nn.Module):
    def __init__(self, num_bits=8, signed=True, momentum=0.1):
        super().__init__()
        self.num_bits, self.signed, self.momentum = num_bits, signed, momentum
        self.register_buffer("running_absmax", torch.ones(()))

    @staticmethod
    def pow2_scale(absmax, num_bits, signed):
        qmax = 2 ** (num_bits - 1) - 1 if signed else 2 ** num_bits - 1
        absmax = max(float(absmax), 1e-8)
        shift = math.ceil(math.log2(absmax / qmax))
        return 2.0 ** shift

    def _quantize(self, x):
        scale = self.pow2_scale(self.running_absmax, self.num_bits, self.signed)
        lo = -(2 ** (self.num_bits - 1)) if self.signed else 0
        hi = 2 ** (self.num_bits - 1) - 1 if self.signed else 2 ** self.num_bits - 1
        q = torch.clamp(torch.round(x / scale), lo, hi) * scale
        return x + (q - x).detach()

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                absmax = x.abs().amax()
                self.running_absmax.lerp_(absmax, self.momentum)
        return self._quantize(x)

    def extra_repr(self):
        return f"num_bits={self.num_bits}, signed={self.signed}"


class ShiftQuantMLP(nn.Module):
    def __init__(self, dims=(8, 16, 4), num_bits=8):
        super().__init__()
        self.net = nn.Sequential(
            Pow2FakeQuant(num_bits), nn.Linear(dims[0], dims[1]), nn.ReLU(),
            Pow2FakeQuant(num_bits, signed=False), nn.Linear(dims[1], dims[2]),
        )

    def forward(self, x):
        return self.net(x)


CASES = [
    ("Pow2FakeQuant", Pow2FakeQuant, lambda: (torch.randn(4, 8) * 3,)),
    ("ShiftQuantMLP", ShiftQuantMLP, lambda: (torch.randn(4, 8),)),
]
