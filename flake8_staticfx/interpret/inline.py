"""Inlining: the values a call site passes, bound to the callee's parameters in a fresh frame
(frame.py), so that the locals of different inlined functions never collide (the renaming of
fx's inliner); and the lookup of the interpreter's method for each kind of node.
"""
from __future__ import annotations

import functools
from typing import Callable

from astroid import nodes

from ..values.base import UNKNOWN, Value
from ..values.containers import Dict, Seq


@functools.cache
def handler_for(owner: type, prefix: str, node_type: type) -> Callable | None:
    """`owner`'s method for a kind of node (`eval_Call`, `exec_If`), or None: looked up once
    per class and kind, not on every expression the interpreter meets."""
    return getattr(owner, prefix + node_type.__name__, None)


def bind_arguments(
    function: nodes.FunctionDef | nodes.Lambda,
    receiver: Value | None,
    args: list[Value],
    kwargs: dict[str, Value],
    default: Callable[[nodes.NodeNG], Value],
    unknown_rest: bool = False,
) -> dict[str, Value]:
    """Parameters of `function` bound to the call's values, as Python binds them.

    `unknown_rest` says the call spread a `*args`/`**kwargs` we cannot see: parameters
    that are not bound otherwise become Unknown instead of taking their defaults.
    """
    spec = function.args
    positional = [*spec.posonlyargs, *spec.args]
    values = list(args)
    if receiver is not None:
        values.insert(0, receiver)
    env: dict[str, Value] = {}
    for param, value in zip(positional, values):
        env[param.name] = value
    extra = values[len(positional):]
    if spec.vararg:
        env[spec.vararg] = Seq(None if unknown_rest else extra)
    rest = {}
    names = {p.name for p in [*positional, *spec.kwonlyargs]}
    for key, value in kwargs.items():
        if key in names and key not in env:
            env[key] = value
        else:
            rest[key] = value
    if spec.kwarg:
        env[spec.kwarg] = Dict(rest, complete=not unknown_rest)
    defaults = spec.defaults or []
    first_default = len(positional) - len(defaults)
    for index, param in enumerate(positional):
        if param.name not in env:
            if unknown_rest:
                env[param.name] = UNKNOWN
            elif index >= first_default:
                env[param.name] = default(defaults[index - first_default])
            else:
                env[param.name] = UNKNOWN
    for param, expr in zip(spec.kwonlyargs, spec.kw_defaults or []):
        if param.name not in env:
            env[param.name] = default(expr) if expr is not None and not unknown_rest else UNKNOWN
    return env
