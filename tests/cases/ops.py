"""Small tensor utilities shared by the models of this package."""
import math

import torch


def masked_mean(values, mask, dim=1, eps=1e-6):
    """Mean of `values` over `dim`, counting only positions where `mask` is set."""
    weights = mask.to(values.dtype)
    while weights.dim() < values.dim():
        weights = weights.unsqueeze(-1)
    total = (values * weights).sum(dim)
    count = weights.sum(dim).clamp_min(eps)
    return total / count


def sinusoid_table(length, dim, base=10000.0):
    """The fixed sinusoidal position table of "Attention is all you need"."""
    position = torch.arange(length, dtype=torch.float32).unsqueeze(1)
    div = torch.exp(torch.arange(0, dim, 2, dtype=torch.float32) * (-math.log(base) / dim))
    table = torch.zeros(length, dim)
    table[:, 0::2] = torch.sin(position * div)
    table[:, 1::2] = torch.cos(position * div)
    return table


def trim_to_longest(padded, lengths):
    """Drop the time steps past the longest sequence of the batch."""
    longest = int(lengths.max())
    return padded[:, :longest]


def stable_softmax(logits, dim=-1, temperature=1.0):
    logits = logits / temperature
    logits = logits - logits.amax(dim=dim, keepdim=True).detach()
    return logits.softmax(dim)


def segment_ids(sizes, kwargs=None):
    """Which segment each row belongs to, unless the caller passed them precomputed."""
    if kwargs is not None and (ids := kwargs.pop("segment_ids", None)) is not None:
        return ids
    return torch.repeat_interleave(torch.arange(sizes.shape[0]), sizes)


def distinct_rows(rows, dedupe):
    """The distinct rows, when asked to dedupe."""
    if not dedupe:
        return rows
    return torch.unique(rows, dim=0)
