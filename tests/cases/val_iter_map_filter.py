"""Functional-style forward code: map() and filter() over lists of tensors and iter()/next()
on them trace; an `if` on what map() gave, a filter whose predicate reads the tensor's truth,
or next() on a generator that tests the data (dynamo gives up on forward) need the values."""
from typing import List

import torch
import torch.nn as nn


class MappedNorms(nn.Module):
    def forward(self, feats: List[torch.Tensor]) -> torch.Tensor:
        normed = list(map(torch.nn.functional.normalize, feats))
        first = next(iter(normed))
        return first + sum(normed[1:])


class NormGate(nn.Module):
    def forward(self, feats: List[torch.Tensor]) -> torch.Tensor:
        norms = list(map(torch.linalg.vector_norm, feats))
        if norms[0] > norms[-1]:
            return feats[0]
        return feats[-1]


class NonEmptyFeatures(nn.Module):
    def forward(self, feats: List[torch.Tensor]) -> torch.Tensor:
        kept = list(filter(lambda f: f.shape[0] > 1, feats))
        return torch.cat(kept)


class ActiveFeatures(nn.Module):
    def forward(self, feats: List[torch.Tensor]) -> torch.Tensor:
        kept = list(filter(lambda f: f.sum() > 0, feats))
        return torch.stack(kept).mean(0)


class FirstPositive(nn.Module):
    def forward(self, feats: List[torch.Tensor]) -> torch.Tensor:
        chosen = next(f for f in feats if f.max() > 0)
        return chosen * 2


CASES = [
    ("MappedNorms", MappedNorms, lambda: ([torch.randn(2, 4) for _ in range(3)],)),
    ("NormGate", NormGate, lambda: ([torch.randn(2, 4) for _ in range(3)],)),
    ("NonEmptyFeatures", NonEmptyFeatures, lambda: ([torch.randn(1, 4), torch.randn(3, 4), torch.randn(2, 4)],)),
    ("ActiveFeatures", ActiveFeatures, lambda: ([torch.ones(2, 4), -torch.ones(2, 4), torch.ones(2, 4)],)),
    ("FirstPositive", FirstPositive, lambda: ([-torch.ones(2, 4), torch.randn(2, 4)],)),
]
