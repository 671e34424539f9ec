"""Helpers with no compile root of their own: only the forwards of reach_models.py call them,
and dynamo reports their breaks here, at the helper's own line (its innermost frame). Near
misses: a break under a test the callers' int skips, and one under a flag they pass False."""
import torch


def _positive_rows(x):
    return x[x.sum(-1) > 0]


def _scaled(x, steps):
    if steps > 2:
        x = x * x.max().item()
    return x + steps


def _normalised(x, exact):
    if exact:
        return x / x.norm().item()
    return x / x.norm()


class RunningTotal:
    """Not a module: its method runs only where a forward calls it."""

    def __init__(self, scale):
        self.scale = scale

    def add(self, total, x):
        return total + x.mean().item() * self.scale
