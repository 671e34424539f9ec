"""A driver that compiles a module-level function by rebinding its name under `global` (as
gpt-fast's main does with decode_one_token): the loop function calling it by name then calls
the compiled one. Two batch sizes recompile once (2 compiles); the same batch throughout is the
near miss (1); a compiled copy bound to a local name leaves the module's `step` as it was, so
the loop still calls the eager function and nothing compiles (the other near miss). The scale
reaches the frame as a keyword through `**options`: a second scale recompiles at its use."""
import torch


def step(x, scale):
    return torch.tanh(x) * scale


def run_steps(x, n, **options):
    for _ in range(n):
        step(x, **options)


def rebound_two_batches():
    global step
    torch.manual_seed(0)
    with torch.device("cpu"):
        x = torch.randn(2, 8)
    step = torch.compile(step)
    with torch.no_grad():
        run_steps(x, 3, scale=0.5)
        run_steps(torch.randn(3, 8), 2, scale=0.5)


def rebound_one_batch():
    global step
    torch.manual_seed(0)
    step = torch.compile(step)
    with torch.no_grad():
        run_steps(torch.randn(2, 8), 3, scale=0.5)
        run_steps(torch.randn(2, 8), 2, scale=0.5)


def rebound_locally():
    torch.manual_seed(0)
    fast_step = torch.compile(step)  # noqa: F841 (a local name: run_steps calls the module's step)
    with torch.no_grad():
        run_steps(torch.randn(2, 8), 3, scale=0.5)
        run_steps(torch.randn(3, 8), 2, scale=0.5)


def rebound_two_scales():
    global step
    torch.manual_seed(0)
    step = torch.compile(step)
    with torch.no_grad():
        run_steps(torch.randn(2, 8), 2, scale=0.5)
        run_steps(torch.randn(2, 8), 2, scale=0.25)


RECOMPILE_CASES = [
    ("rebound_two_batches", rebound_two_batches),
    ("rebound_one_batch", rebound_one_batch),
    ("rebound_locally", rebound_locally),
    ("rebound_two_scales", rebound_two_scales),
]
