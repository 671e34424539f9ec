"""Compiled functions whose parameters the file's own calls fill with non-tensors: a function
and an int. Dynamo traces the function passed and decides the int's test; the linter reads
the calls instead of assuming tensors. Near misses: an int that skips the breaking branch, a
parameter a call fills with a tensor, and one filled with two different functions."""
import torch


def scaled_sum(x):
    return x * x.sum().item()


def plain_double(x):
    return x * 2


def peak_scaled(x):
    return x / x.max().item()


@torch.compile
def apply_each(fn, x):
    return fn(x) + 1


@torch.compile
def repeat_steps(steps, x):
    if steps > 2:
        x = x * x.max().item()
    return x + steps


@torch.compile
def short_steps(steps, x):
    if steps > 2:
        x = x * x.max().item()
    return x + steps


@torch.compile
def tensor_or_int(scale, x):
    return x * scale


@torch.compile
def mixed(fn, x):
    return fn(x) + 1


def run_apply(x):
    return apply_each(scaled_sum, x)


def run_steps(x):
    return repeat_steps(3, x) + short_steps(1, x)


def run_scale(x):
    return tensor_or_int(torch.ones(1), x)


def run_mixed(x):
    return mixed(plain_double, x) + mixed(peak_scaled, x)


CASES = [
    ("run_apply", lambda: run_apply, lambda: (torch.randn(4),)),
    ("run_steps", lambda: run_steps, lambda: (torch.randn(4),)),
    ("run_scale", lambda: run_scale, lambda: (torch.randn(4),)),
    ("run_mixed", lambda: run_mixed, lambda: (torch.randn(4),)),
]
