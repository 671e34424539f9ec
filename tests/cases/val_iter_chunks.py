"""Grouped processing over torch.split/chunk results: the pieces are tensors in a Python tuple,
so reversed(), zip() and indexing trace; a count taken from a piece with .item() and used as
a Python int afterwards does not."""
import torch
import torch.nn as nn


class ReversedGroups(nn.Module):
    def __init__(self, dim=4, groups=3):
        super().__init__()
        self.mixers = nn.ModuleList(nn.Linear(dim, dim) for _ in range(groups))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pieces = torch.chunk(x, 3, dim=-1)
        outs = [mixer(piece) for mixer, piece in zip(self.mixers, reversed(pieces))]
        return torch.cat(outs, dim=-1)


class SplitResidual(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = []
        prev = None
        for piece in torch.split(x, 2, dim=1):
            out.append(piece if prev is None else piece + prev)
            prev = piece
        return torch.cat(out, dim=1)


class SplitCountRepeat(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        head, tail = x.split([1, x.shape[0] - 1])
        reps = int(head.abs().sum().item()) + 1
        return tail.repeat(reps, 1)


CASES = [
    ("ReversedGroups", ReversedGroups, lambda: (torch.randn(2, 12),)),
    ("SplitResidual", SplitResidual, lambda: (torch.randn(2, 6),)),
    ("SplitCountRepeat", SplitCountRepeat, lambda: (torch.randn(3, 4),)),
]
