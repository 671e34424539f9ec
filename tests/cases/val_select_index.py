"""Picking one step of a sequence: select's index is a Python int, so an index reduced from
the data is read back; an index from the shape traces, and so does gather with a tensor
index."""
import torch
import torch.nn as nn


class SelectPeakStep(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        peak = x.sum(-1).sum(0).argmax()
        return x.select(1, peak)


class SelectLastStep(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        last = x.shape[1] - 1
        peak = x.sum(-1).argmax(-1)
        picked = x.gather(1, peak.view(-1, 1, 1).expand(-1, 1, x.shape[-1])).squeeze(1)
        return x.select(1, last) + picked


CASES = [
    ("SelectPeakStep", SelectPeakStep, lambda: (torch.randn(2, 5, 4),)),
    ("SelectLastStep", SelectLastStep, lambda: (torch.randn(2, 5, 4),)),
]
