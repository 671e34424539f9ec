"""Vocabulary and class statistics: torch.unique's output length depends on the data with or
without return_counts; bincount with minlength still sizes its output by the largest value;
histc has a fixed bin count and traces."""
import torch
import torch.nn as nn


class UniqueCounts(nn.Module):
    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        values, counts = torch.unique(ids, return_counts=True)
        return counts.float() / ids.numel() + values.sum()


class ClassFrequency(nn.Module):
    def forward(self, labels: torch.Tensor) -> torch.Tensor:
        freq = torch.bincount(labels, minlength=6)
        return freq.float() / labels.numel()


class ScoreHistogram(nn.Module):
    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        hist = torch.histc(scores, bins=8, min=-3.0, max=3.0)
        return hist / hist.sum()


CASES = [
    ("UniqueCounts", UniqueCounts, lambda: (torch.tensor([3, 1, 3, 2, 1, 3]),)),
    ("ClassFrequency", ClassFrequency, lambda: (torch.tensor([0, 2, 2, 5, 1]),)),
    ("ScoreHistogram", ScoreHistogram, lambda: (torch.randn(20),)),
]
