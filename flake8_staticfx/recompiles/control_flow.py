"""The driver replay's loops, branches on data and `with` blocks (drivers.py): how many passes a
loop makes, which names a branch leaves known, and the grad mode, autocast state and default
device a `with` block sets for the calls in it."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from .coarse import loop_goes_on, neutral_context, run_once
from .declarations import GRAD_CONTEXTS, assigns_only, pure
from .open_loops import counted, ends_on_data, open_loop
from .stops import StopReplay
from .syntax import dotted
from .values import Const, Optimizer, Parameters, TensorValue, Unfollowed, joined

if TYPE_CHECKING:
    from .drivers import Replay


def loop(replay: Replay, node: ast.For | ast.While, env: dict) -> None:
    """A `for` or `while` loop: its passes replayed while the replay knows them."""
    if isinstance(node, ast.For):
        numbers = counted(replay, node.iter, env)
        iterated = None if numbers is not None else replay.known(node.iter, env) if replay.lenient else replay.expr(
            node.iter, env)
        if isinstance(iterated, (Optimizer, Parameters)):
            optimizer_loop(replay, node, iterated, env)
            return
        items = numbers if numbers is not None else loop_items(replay, iterated)
        if items is None:
            run_once(replay, node, env)
        elif numbers is not None or ends_on_data(node):
            open_loop(replay, node, items, env)
        else:
            for item in items:
                replay.assign(node.target, item, env)
                if not replay.loop_body(node.body, env):
                    break
    else:
        passes = 0
        while loop_goes_on(replay, node, env, passes):  # `while len(all_images) * batch_size < num_samples:`
            passes += 1
            if not replay.loop_body(node.body, env):
                break


def loop_items(replay: Replay, iterated) -> list | None:
    """The items a `for` loop takes; None where the coarse replay does not know them."""
    try:
        return replay.iterate(iterated)
    except StopReplay:
        if not replay.lenient:
            raise
    return None


def both_branches(replay: Replay, node: ast.If, env: dict) -> None:
    """An `if` on data (a number a data branch picked, a tensor): both branches run on copies
    of the names, followed only when all they do is assign names and call no compiled frame;
    a name they leave different is no longer known."""
    calls, taken, skipped = len(replay.calls), dict(env), dict(env)
    if not (assigns_only(node.body) and assigns_only(node.orelse)):
        raise StopReplay("a branch on data")
    replay.block(node.body, taken)
    replay.block(node.orelse, skipped)
    if len(replay.calls) != calls:
        raise StopReplay("a compiled call under a branch on data")
    env.update(joined(taken, skipped))


def optimizer_loop(replay: Replay, node: ast.For, optimizer: Optimizer | Parameters, env: dict) -> None:
    """`for group in optimizer.param_groups:` or `for p in model.parameters():`, items not
    counted: the body runs once, and is followed only when all it changes is the optimizer
    (`group['lr'] = lr`) or the parameters' values (`p.data.add_(p.grad, alpha=-lr)`), which
    no guard reads, whatever the count."""
    before, calls = dict(env), len(replay.calls)
    replay.assign(node.target, optimizer if isinstance(optimizer, Optimizer) else TensorValue(None, True), env)
    if not replay.loop_body(node.body, env):
        raise StopReplay("a break in a loop over the optimizer's groups: how many items it saw is not known")
    targets = {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
    changed = {name for name in env if name not in targets and env[name] is not before.get(name)}
    if changed or len(replay.calls) != calls:
        raise StopReplay("a loop over the optimizer's groups that changes more than the optimizer")


def with_block(replay: Replay, node: ast.With, env: dict) -> None:
    """A `with` block: its body under the modes its context managers set."""
    saved = replay.grad_mode, replay.autocast, replay.device_scope
    for item in node.items:
        func = item.context_expr.func if isinstance(item.context_expr, ast.Call) else None
        name = replay.resolve(dotted(func)) if func is not None else ""
        if name.startswith("torch.") and name.split(".")[-1] in GRAD_CONTEXTS:
            replay.grad_mode = GRAD_CONTEXTS[name.split(".")[-1]]
        elif name == "torch.device":
            replay.device_scope = True  # a default device for the tensors made in it (setup_caches)
        elif name in ("torch.autocast", "torch.amp.autocast", "torch.cpu.amp.autocast"):
            enabled = next((k.value for k in item.context_expr.keywords if k.arg == "enabled"), None)
            value = replay.expr(enabled, env) if enabled is not None else Const(True)
            if not isinstance(value, Const):
                raise StopReplay("autocast")
            replay.autocast = bool(value.value)
        elif name == "open" and isinstance(item.optional_vars, ast.Name):
            if not all(pure(argument) or replay.library_calls_only(argument, env) for argument in (
                    *item.context_expr.args, *(k.value for k in item.context_expr.keywords))):
                raise StopReplay("a file opened at a path computed by code the replay follows")
            env[item.optional_vars.id] = Unfollowed()  # a file: what is written to it, no guard reads
            continue
        elif replay.lenient and neutral_context(replay, item.context_expr, env):
            if item.optional_vars is not None:  # `with tqdm(...) as bar:`: a library's object
                replay.assign(item.optional_vars, Unfollowed(), env)
            continue
        else:
            raise StopReplay("context manager")
        if item.optional_vars is not None:
            raise StopReplay("with ... as")
    replay.block(node.body, env)
    replay.grad_mode, replay.autocast, replay.device_scope = saved
