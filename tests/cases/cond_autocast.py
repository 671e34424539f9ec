"""Breaks reached only with autocast on or off (`torch.is_autocast_enabled("cpu")`, a flag
dynamo guards on rather than break), as mixed-precision code checks for overflow; the cases are
named by how the call runs (`-autocast`: under torch.autocast("cpu", dtype=torch.bfloat16),
`-noautocast`: without)."""
import torch
import torch.nn as nn


class AutocastCheck(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        h = self.proj(x)
        if torch.is_autocast_enabled("cpu") and h.abs().max() > 1e4:
            h = h.clamp(-1e4, 1e4)
        if not torch.is_autocast_enabled(device_type="cpu"):
            print("full precision")
        return torch.relu(h)


class AutocastAlways(nn.Module):
    """Near miss: the autocast test picks an op, not a break; the break happens either way."""

    def forward(self, x):
        if torch.is_autocast_enabled("cpu"):
            x = x.float()
        return x * x.max().item()


def under_autocast(make_model):
    def build():
        model = make_model()

        def run(x):
            with torch.autocast("cpu", dtype=torch.bfloat16):
                return model(x)

        return run

    return build


CASES = [
    ("AutocastCheck-autocast", under_autocast(AutocastCheck), lambda: (torch.randn(2, 8),)),
    ("AutocastCheck-noautocast", AutocastCheck, lambda: (torch.randn(2, 8),)),
    ("AutocastAlways-autocast", under_autocast(AutocastAlways), lambda: (torch.randn(2, 8),)),
    ("AutocastAlways-noautocast", AutocastAlways, lambda: (torch.randn(2, 8),)),
]
