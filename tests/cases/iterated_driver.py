"""The calls of iterated_steps.py's compiled functions, from eager code: a zip, a tuple of the
items. Each case makes the call of the run_* of the same name."""
import torch

from .iterated_steps import accumulate, accumulate_tuple


def run_zip(x):
    return accumulate(zip([1.0, 2.0], [x, x]), x)


def run_tuple(x):
    return accumulate_tuple(tuple(zip([1.0, 2.0], [x, x])), x)


X = torch.randn(4)
CASES = [
    ("run_zip", lambda: accumulate, lambda: (zip([1.0, 2.0], [X, X]), X)),
    ("run_tuple", lambda: accumulate_tuple, lambda: (tuple(zip([1.0, 2.0], [X, X])), X)),
]
