"""Multi-scale heads that walk features with zip and enumerate: the items are still tensors,
so a `.item()` or an `if` on one is found; the same walk without them traces."""
import torch
import torch.nn as nn


class ScaleWeightedSum(nn.Module):
    """Skips the scales whose feature is all zero."""

    def __init__(self, dim=8):
        super().__init__()
        self.heads = nn.ModuleList([nn.Linear(dim, dim) for _ in range(2)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        feats = [x, x * 0.5]
        out = torch.zeros_like(x)
        for head, feat in zip(self.heads, feats):
            if feat.abs().sum() > 0:
                out = out + head(feat)
        return out


class RowNormLog(nn.Module):
    """Collects each row's norm as a float."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        norms = []
        for i, row in enumerate(x):
            norms.append(row.norm().item() * (i + 1))
        return x / sum(norms)


class PairwiseGate(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        gated = [torch.sigmoid(p) * q for p, q in zip(a, b)]
        return torch.stack(gated)


class ChunkScales(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        parts = []
        for i, chunk in enumerate(x.chunk(2, dim=-1)):
            parts.append(chunk * (i + 1))
        return torch.cat(parts, dim=-1)


CASES = [
    ("ScaleWeightedSum", ScaleWeightedSum, lambda: (torch.randn(2, 8),)),
    ("RowNormLog", RowNormLog, lambda: (torch.randn(3, 8),)),
    ("PairwiseGate", PairwiseGate, lambda: (torch.randn(3, 4), torch.randn(3, 4))),
    ("ChunkScales", ChunkScales, lambda: (torch.randn(2, 8),)),
]
