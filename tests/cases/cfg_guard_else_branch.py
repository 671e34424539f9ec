"""Eager-only statistics in the else branch of a compile guard, and the jit queries that are
False under dynamo (so their branch is the one traced)."""
import torch
import torch.nn as nn
from torch.compiler import is_compiling as compiling


def tracing_for_export() -> bool:
    return torch.jit.is_tracing() or torch.jit.is_scripting()


class ClampedScorer(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        score = self.proj(x)
        if compiling():
            limit = 5.0
        else:
            limit = float(score.abs().max().item()) + 1.0
        return score.clamp(-limit, limit)


class ExportAwareScorer(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        score = self.proj(x)
        if tracing_for_export():
            return score
        peak = score.max().item()
        return score - peak


class JitTracingScorer(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        score = self.proj(x)
        if not torch.jit.is_tracing():
            return score.sigmoid()
        print("traced for export")
        return score


CASES = [
    ("ClampedScorer", ClampedScorer, lambda: (torch.randn(3, 8),)),
    ("ExportAwareScorer", ExportAwareScorer, lambda: (torch.randn(3, 8),)),
    ("JitTracingScorer", JitTracingScorer, lambda: (torch.randn(3, 8),)),
]
