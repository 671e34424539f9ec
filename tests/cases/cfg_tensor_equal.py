"""torch.equal between tensors steering Python control flow: a cache check against the last
input, a symmetry test, and torch.is_same_size, which compares shapes only but is a torch op
returning a bool (GB0208)."""
import torch
import torch.nn as nn


class CachedEncoder(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.register_buffer("last_input", torch.zeros(2, dim))
        self.register_buffer("last_output", torch.zeros(2, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.equal(x, self.last_input):
            return self.last_output
        return self.fc(x)


class SymmetricAttention(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        symmetric = torch.equal(scores, scores.transpose(-1, -2))
        weights = scores.softmax(-1)
        return weights if symmetric else 0.5 * (weights + weights.transpose(-1, -2))


class ShapeMatchedResidual(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, skip: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        if torch.is_same_size(h, skip):
            h = h + skip
        return h


CASES = [
    ("CachedEncoder", CachedEncoder, lambda: (torch.randn(2, 8),)),
    ("SymmetricAttention", SymmetricAttention, lambda: (torch.randn(2, 8, 8),)),
    ("ShapeMatchedResidual", ShapeMatchedResidual, lambda: (torch.randn(2, 8), torch.randn(2, 8))),
]
