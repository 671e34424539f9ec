"""Breaks reached in one floating dtype only, as BART's encoder layer clamps float16 overflow:
`if hidden_states.dtype == torch.float16 and not torch.isfinite(hidden_states).all():`. The
cases are named by the dtype of their inputs (`-float32`, `-float16`)."""
import torch
import torch.nn as nn


class ClampOverflow(nn.Module):
    def forward(self, hidden_states):
        hidden_states = hidden_states * 2
        if hidden_states.dtype == torch.float16 and not torch.isfinite(hidden_states).all():
            clamp_value = torch.finfo(hidden_states.dtype).max - 1000
            hidden_states = torch.clamp(hidden_states, min=-clamp_value, max=clamp_value)
        if hidden_states.dtype != torch.float16:
            print("full precision")
        return hidden_states + 1


class UpcastAlways(nn.Module):
    """Near miss: the dtype test picks an op, not a break; the break happens in every dtype."""

    def forward(self, hidden_states):
        if hidden_states.dtype == torch.float16:
            hidden_states = hidden_states.float()
        return hidden_states * hidden_states.max().item()


CASES = [
    ("ClampOverflow-float32", ClampOverflow, lambda: (torch.randn(2, 8),)),
    ("ClampOverflow-float16", ClampOverflow, lambda: (torch.randn(2, 8).half(),)),
    ("UpcastAlways-float32", UpcastAlways, lambda: (torch.randn(2, 8),)),
    ("UpcastAlways-float16", UpcastAlways, lambda: (torch.randn(2, 8).half(),)),
]
