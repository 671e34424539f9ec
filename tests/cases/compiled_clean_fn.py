"""Compiled functional kernels used by a mixer block."""
import torch
import torch.nn as nn
import torch.nn.functional as F


@torch.compile
def rms_norm(x, weight, eps=1e-6):
    if x.dtype != torch.float32:
        x = x.float()
    scale = torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    return x * scale * weight


@torch.compile(dynamic=False)
def swiglu(x, w_gate, w_up):
    gate = F.silu(x @ w_gate)
    return gate * (x @ w_up)


class MixerBlock(nn.Module):
    def __init__(self, dim=16, hidden=32):
        super().__init__()
        self.norm_weight = nn.Parameter(torch.ones(dim))
        self.w_gate = nn.Parameter(torch.randn(dim, hidden) * 0.1)
        self.w_up = nn.Parameter(torch.randn(dim, hidden) * 0.1)
        self.down = nn.Linear(hidden, dim)

    def forward(self, x):
        h = rms_norm(x, self.norm_weight)
        activation = lambda t: swiglu(t, self.w_gate, self.w_up)
        return x + self.down(activation(h))


CASES = [
    ("rms_norm", lambda: rms_norm, lambda: (torch.randn(3, 16), torch.ones(16))),
    ("MixerBlock", MixerBlock, lambda: (torch.randn(3, 16),)),
]
