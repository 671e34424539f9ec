"""Sequence walkers that pull items by hand: iter()/next() over unbind() and pairwise zip over a
tensor and its shifted slice trace; the first step's peak read with .item(), or a branch on
the difference of two steps, needs the data."""
import torch
import torch.nn as nn


class FirstAndRest(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        steps = iter(x.unbind(1))
        first = next(steps)
        rest = torch.stack(list(steps), 1)
        return rest - first[:, None]


class PeakFromFirst(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        steps = iter(x.unbind(1))
        first = next(steps)
        peak = first.abs().max().item()
        return x / (peak + 1e-6)


class PairwiseDiffs(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        diffs = [b - a for a, b in zip(x, x[1:])]
        return torch.stack(diffs)


class StopOnPlateau(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = x[0]
        for prev, cur in zip(x, x[1:]):
            if (cur - prev).abs().max() < 1e-3:
                break
            out = out + cur
        return out


CASES = [
    ("FirstAndRest", FirstAndRest, lambda: (torch.randn(2, 4, 3),)),
    ("PeakFromFirst", PeakFromFirst, lambda: (torch.randn(2, 4, 3),)),
    ("PairwiseDiffs", PairwiseDiffs, lambda: (torch.randn(4, 3),)),
    ("StopOnPlateau", StopOnPlateau, lambda: (torch.randn(4, 3),)),
]
