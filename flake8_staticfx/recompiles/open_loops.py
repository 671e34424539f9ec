"""Loops a test on data ends (drivers.py): `for t in range(1, 10000): ... if terminated: break`,
`for i_episode in count(1): ... if running_reward > threshold: break`.

How many times the body runs is not known, only that it runs at least once (the break test comes
last, so every call of the first pass is made). The body is replayed a few times: when every pass
calls the compiled frames with what the first pass presented (the same frames, modules, modes,
argument descriptions and the attributes the frames read, taken at the call), no trip count
compiles more than the first pass did, and the replay goes on after the loop with the names the
passes left different unknown. Otherwise only the first pass's calls are kept and the replay
stops there: what later passes compile depends on how long the loop runs.
"""
from __future__ import annotations

import ast
from itertools import count

from .stops import StopInside, StopReplay
from .values import Const, joined

PASSES = 3  # passes replayed: the first, and two that must present what it presented


def ends_on_data(node: ast.For) -> bool:
    """A loop whose body's only `break` is its last statement, `if test: break`."""
    last = node.body[-1]
    if not (isinstance(last, ast.If) and not last.orelse and len(last.body) == 1
            and isinstance(last.body[0], ast.Break)):
        return False
    return not any(isinstance(n, ast.Break) for statement in node.body[:-1] for n in own_statements(statement))


def own_statements(node: ast.AST):
    """The nodes of a statement, the bodies of the loops inside it left out (their `break` is theirs)."""
    yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, (ast.For, ast.While, ast.FunctionDef, ast.Lambda)):
            yield from own_statements(child)


def counted(replay, node: ast.expr, env: dict):
    """`count(1)`: its numbers, else None."""
    if not (isinstance(node, ast.Call) and not node.keywords and len(node.args) <= 1
            and replay.resolve(ast.unparse(node.func)) == "itertools.count"):
        return None
    start = replay.expr(node.args[0], env) if node.args else Const(0)
    if not (isinstance(start, Const) and isinstance(start.value, int)):
        raise StopReplay("count from a number not known")
    return (Const(number) for number in count(start.value))


def open_loop(replay, node: ast.For, items, env: dict) -> None:
    """Replay the loop's passes while the break test is known; from the first pass whose test is
    not, PASSES passes in all, kept only when each presents the calls the first one did."""
    body, test = node.body[:-1], node.body[-1].test
    first: list[str] | None = None  # the calls of the first pass whose test is not known
    kept, passes, before = 0, 0, dict(env)
    for item in items:
        before, calls = dict(env), len(replay.calls)
        replay.assign(node.target, item, env)
        replay.open_loops += 1
        try:
            went_on = replay.loop_body(body, env)
        finally:
            replay.open_loops -= 1
        if not went_on:
            return
        presented = [replay.signatures[i] for i in range(calls, len(replay.calls))]
        if first is not None and presented != first:
            del replay.calls[kept:]
            raise StopReplay("a loop a test on data ends, its passes calling differently")
        value = _test(replay, test, env)
        if isinstance(value, Const) and value.value:
            break
        if first is None and not isinstance(value, Const):
            first, kept = presented, len(replay.calls)
        passes += first is not None
        if passes == PASSES:
            break
    if first is not None:
        env.update(joined(before, env))


def _test(replay, test: ast.expr, env: dict):
    """The break test's value; None for one on values not followed (`running_reward > 12`, the
    reward an environment not followed gave)."""
    calls = len(replay.calls)
    try:
        return replay.expr(test, env)
    except StopInside:
        raise
    except (StopReplay, ArithmeticError, TypeError, ValueError):
        if len(replay.calls) != calls:
            raise
        return None


def signature(call) -> str:
    """What a call presents to the guards, taken at the call (a list the driver appends to
    grows after it): the frame, module, modes, arguments and the attributes the frame names."""
    named = {n.attr for n in ast.walk(call.frame) if isinstance(n, ast.Attribute)}
    read = {name: value for name, value in call.attributes.items() if name in named}
    return repr((id(call.frame), id(call.instance), call.training, call.grad_mode, call.autocast, call.dynamic,
                 call.line, call.args, read))
