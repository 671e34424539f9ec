"""torch's own context managers written in forward: autocast around a projection, a disabled
autocast for the numerically sensitive part, contextlib.nullcontext as a switch, and
torch.profiler.record_function labelling a region."""
import contextlib

import torch
import torch.nn as nn


class MixedPrecisionAttention(nn.Module):
    def __init__(self, dim=8, use_amp=True):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.use_amp = use_amp

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        amp = torch.autocast("cpu", dtype=torch.bfloat16) if self.use_amp else contextlib.nullcontext()
        with amp:
            q, k, v = self.qkv(x).chunk(3, dim=-1)
        with torch.autocast(device_type=x.device.type, enabled=False):
            attn = (q.float() @ k.float().transpose(-1, -2)).softmax(-1)
        return attn @ v.float()


class ProfiledBlock(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc1 = nn.Linear(dim, dim)
        self.fc2 = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch.profiler.record_function("block.fc1"):
            h = self.fc1(x).relu()
        with torch.profiler.record_function("block.fc2"):
            return self.fc2(h)


class TimedBlock(nn.Module):
    """The near miss: a profiler region that also prints its label."""

    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch.profiler.record_function("timed.fc"):
            h = self.fc(x)
            print("timed.fc done")
        return h.relu()


CASES = [
    ("MixedPrecisionAttention", MixedPrecisionAttention, lambda: (torch.randn(2, 4, 8),)),
    ("ProfiledBlock", ProfiledBlock, lambda: (torch.randn(2, 8),)),
    ("TimedBlock", TimedBlock, lambda: (torch.randn(2, 8),)),
]
