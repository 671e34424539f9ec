"""Compiled functions that iterated_driver.py calls, none called here: what they are passed is
read from that file's calls. A zip breaks where the loop iterates it (the whole function runs
eagerly); the near miss, a tuple of the items, does not."""
import torch


@torch.compile(backend="eager")
def accumulate(pairs, x):
    for weight, t in pairs:
        x = x + weight * t
    return x


@torch.compile(backend="eager")
def accumulate_tuple(pairs, x):
    for weight, t in pairs:
        x = x + weight * t
    return x

