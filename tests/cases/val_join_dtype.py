"""Mixed-precision upcasts: `x.dtype in (torch.float16, torch.bfloat16)` is decided at trace
time, so the cast and everything after it traces; whichever branch ran, the result is a
tensor, and reading it back with .tolist() or branching on it after the join breaks."""
import torch
import torch.nn as nn


class UpcastSoftmax(nn.Module):
    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        if scores.dtype in (torch.float16, torch.bfloat16):
            probs = scores.float().softmax(-1).to(scores.dtype)
        else:
            probs = scores.softmax(-1)
        return probs


class UpcastStats(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dtype in (torch.float16, torch.bfloat16):
            stats = x.float().mean(-1)
        else:
            stats = x.mean(-1)
        values = stats.tolist()
        return x * len(values)


class UpcastOverflowCheck(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x.float() if x.dtype == torch.float16 else x
        if torch.isinf(h).any():
            h = torch.nan_to_num(h)
        return h * 2


CASES = [
    ("UpcastSoftmax", UpcastSoftmax, lambda: (torch.randn(2, 5),)),
    ("UpcastStats", UpcastStats, lambda: (torch.randn(2, 5),)),
    ("UpcastOverflowCheck", UpcastOverflowCheck, lambda: (torch.randn(2, 5),)),
]
