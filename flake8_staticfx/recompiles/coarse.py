"""A driver's second, coarse replay (drivers.py, `Replay.lenient`): after the exact replay
stopped at something it does not follow, the driver runs again and goes on past it.

What the coarse replay passes over binds unknown values (values.Unfollowed); a loop it cannot
count runs once, taken to run at least once (a driver's loops over its data and epochs do); a
branch whose test it does not know is passed over with its calls, unless both branches make the
same calls; after a `break` or `return` it passed over undecided, no call is recorded to the end
of the loop or function (it may not be made). The calls it records
are marked not followed: what they say of their inputs is partial, so cache.py claims from them
only what holds whatever the rest is (a grad mode no earlier call had). Passing over code that
may change dynamo's settings or the global state (`torch.set_grad_enabled`, `torch._dynamo`'s
config), directly or in the project functions it calls, still ends the replay.
"""
from __future__ import annotations

import ast
from dataclasses import replace
from typing import TYPE_CHECKING

from .declarations import STATE_SETTERS
from .open_loops import own_statements
from .stops import LoopExit, Returned, StateChange, StopReplay
from .syntax import dotted
from .unfollowed import TORCH_NAMES, forget_read
from .values import Unfollowed, joined

if TYPE_CHECKING:
    from .drivers import Call, Replay

# Whatever their module, names that switch grad mode or autocast outside a `with` block.
_GLOBAL_SWITCHES = frozenset({"set_grad_enabled", "set_autocast_enabled", "set_inference_mode"})


def bound_names(statement: ast.stmt) -> set[str]:
    """The names `statement` binds anywhere in its body, nested functions' own left out."""
    return {node.id for node in _outside_definitions(statement) if isinstance(node, ast.Name) and isinstance(
        node.ctx, ast.Store)} | {node.name for node in _outside_definitions(statement) if isinstance(
            node, _DEFINITIONS) and node is not statement}


def _outside_definitions(statement: ast.stmt):
    """The nodes of `statement`, those inside a function, class or lambda it defines left out."""
    pending = [statement]
    while pending:
        node = pending.pop()
        yield node
        if node is statement or not isinstance(node, (*_DEFINITIONS, ast.Lambda)):
            pending.extend(ast.iter_child_nodes(node))


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class StateChanges:
    """Which code may reset dynamo, change its settings or switch grad mode or autocast for the
    calls after it, directly or through a function or method of the file it calls (by name,
    transitively): the file's functions are read once, the coarse replay asking for every
    statement it passes over. `resolve` spells a dotted name as its library does
    (`th.set_grad_enabled`)."""

    def __init__(self, resolve, functions: dict[str, ast.FunctionDef], classes: dict[str, ast.ClassDef]):
        self.resolve, self.functions = resolve, functions
        self.methods: dict[str, list[ast.FunctionDef]] = {}
        for cls in classes.values():
            for item in cls.body:
                if isinstance(item, ast.FunctionDef):
                    self.methods.setdefault(item.name, []).append(item)
        bodies = [*functions.values(), *(method for methods in self.methods.values() for method in methods)]
        self.changing = {id(body) for body in bodies if self._sets_state(body)}
        grown = True
        while grown:  # what calls a function that changes the state changes it too
            grown = False
            for body in bodies:
                if id(body) not in self.changing and any(id(callee) in self.changing for callee in self._callees(body)):
                    self.changing.add(id(body))
                    grown = True

    def __call__(self, node: ast.AST) -> bool:
        return self._sets_state(node) or any(id(callee) in self.changing for callee in self._callees(node))

    def _sets_state(self, node: ast.AST) -> bool:
        for child in ast.walk(node):
            if isinstance(child, ast.Call) and dotted(child.func):
                name = self.resolve(dotted(child.func))
                if name.startswith(STATE_SETTERS) or name.split(".")[-1] in _GLOBAL_SWITCHES:
                    return True
            elif isinstance(child, (ast.Assign, ast.AugAssign)):
                targets = child.targets if isinstance(child, ast.Assign) else [child.target]
                if any(self.resolve(dotted(t)).startswith(STATE_SETTERS) for t in targets if dotted(t)):
                    return True  # torch._dynamo.config.cache_size_limit = 64
        return False

    def _callees(self, node: ast.AST) -> list[ast.FunctionDef]:
        """The functions and methods of the file `node` calls, a method by its name alone."""
        found = []
        for child in ast.walk(node):
            if isinstance(child, ast.Call) and isinstance(child.func, ast.Name) and child.func.id in self.functions:
                found.append(self.functions[child.func.id])
            elif isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute):
                found.extend(self.methods.get(child.func.attr, ()))
        return found


def pass_over(replay: Replay, statement: ast.stmt, env: dict, calls: int) -> None:
    """Go on past a statement not followed: what it binds is unknown, and the calls of a branch
    whose test is not known were maybe not made (`calls`: the calls recorded before it)."""
    if replay.state_changes(statement):
        raise StateChange("code not followed may change dynamo's state")
    if isinstance(statement, ast.If):
        del replay.calls[calls:]
    returns, breaks = _leaves(statement)
    replay.may_have_returned |= returns
    replay.may_have_broken |= breaks
    forget_read(statement, lambda name: replay.name_value(name, env))
    forget(replay, bound_names(statement) | _changed_in_place(statement), env)
    if isinstance(statement, ast.Return):
        raise Returned(Unfollowed())


def either_branch(replay: Replay, node: ast.If, env: dict) -> None:
    """An `if` whose test the coarse replay does not know: both branches run on copies of the
    names. Their compiled calls are kept where both make the same ones (the same frames on the
    same modules in the same modes, in order: teacher forcing or not), their arguments unknown; a
    name they leave different is unknown. A branch that returns or leaves its loop is passed
    over (pass_over)."""
    start, branches = len(replay.calls), []
    for body in (node.body, node.orelse):
        names = dict(env)
        try:
            replay.block(body, names)
        except (Returned, LoopExit) as left:
            raise StopReplay("a branch not decided that leaves") from left
        branches.append((names, replay.calls[start:]))
        del replay.calls[start:]
    (taken, first), (skipped, second) = branches
    if [_called(call) for call in first] == [_called(call) for call in second]:
        replay.calls.extend(replace(call, args=[Unfollowed() for _ in call.args]) for call in first)
    env.update(joined(taken, skipped))


def _called(call: Call) -> tuple:
    return id(call.frame), id(call.instance), call.grad_mode, call.autocast


def _changed_in_place(statement: ast.stmt) -> set[str]:
    """The names whose objects `statement` calls an in-place method on (`x.unsqueeze_(0)`,
    `h.requires_grad_()`) or sets an attribute of (`x.requires_grad = flag`): a tensor's rank or
    requires_grad may have changed."""
    return {node.func.value.id for node in ast.walk(statement) if isinstance(node, ast.Call) and isinstance(
        node.func, ast.Attribute) and node.func.attr.endswith("_") and isinstance(node.func.value, ast.Name)} | {
        node.value.id for node in ast.walk(statement) if isinstance(node, ast.Attribute) and isinstance(
            node.ctx, ast.Store) and isinstance(node.value, ast.Name)}


def _leaves(statement: ast.stmt) -> tuple[bool, bool]:
    """Whether `statement` may return from its function, and leave the loop around it."""
    returns = any(isinstance(node, ast.Return) for node in _outside_definitions(statement))
    breaks = not isinstance(statement, (ast.For, ast.While)) and any(
        isinstance(node, (ast.Break, ast.Continue)) for node in own_statements(statement))
    return returns, breaks


def run_once(replay: Replay, loop: ast.For | ast.While, env: dict) -> None:
    """A loop not counted: one pass, taken to be made, after which what the body rebinds is not
    known (a later pass may have changed it)."""
    if isinstance(loop, ast.For):
        replay.assign(loop.target, Unfollowed(), env)
    replay.loop_body(loop.body, env)
    forget(replay, bound_names(loop), env)


def loop_goes_on(replay: Replay, loop: ast.While, env: dict, passes: int) -> bool:
    """A `while` test the replay knows; in the coarse replay, one it does not know ends the loop,
    after one pass (`run_once`) when it is the loop's first test."""
    try:
        return replay.known_test(loop.test, env)
    except StopReplay:
        if not replay.lenient:
            raise
    if passes == 0:
        run_once(replay, loop, env)
    else:
        forget(replay, bound_names(loop), env)
    return False


def neutral_context(replay: Replay, node: ast.expr, env: dict) -> bool:
    """A context manager a function of a library other than torch makes (`tqdm(...)`,
    `contextlib.nullcontext()`): it switches nothing dynamo guards."""
    name = dotted(node.func) if isinstance(node, ast.Call) else ""
    root = name.split(".")[0]
    return bool(name) and root not in env and root not in replay.functions and root not in replay.classes \
        and root not in TORCH_NAMES and not replay.resolve(name).startswith("torch")


def forget(replay: Replay, names: set[str], env: dict) -> None:
    for name in sorted(names):
        replay.assign(ast.Name(name, ast.Store()), Unfollowed(), env)
