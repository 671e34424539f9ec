"""Inlining: a call of project or library code runs in a fresh frame (frame.py) holding the
values the call site passes, bound to the callee's parameters, so that the locals of different
inlined functions never collide (the renaming of fx's inliner); a call inlined before in the
file with arguments of the same kinds stands in its summary instead, unless the summary could
miss a mutation. Also the lookup of the interpreter's method for each kind of node.
"""
from __future__ import annotations

import functools
import weakref
from typing import TYPE_CHECKING, Callable

from astroid import nodes
from astroid.const import Context

from .. import rules, tables
from ..discover.parse import nodes_of_class
from ..discover.roots import config_patch
from ..ir import Origin
from ..values import (UNKNOWN, ClassRef, Function, Module, Static, Tensor, Value, as_args, as_kwargs, join_all,
                      opaque_call)
from ..values.containers import Dict, Seq
from ..values.tensors import sparse_operand
from .frame import Frame
from .resume import every_path_break

if TYPE_CHECKING:
    from .interpreter import Interpreter


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


def inline_call(tx: Interpreter, function: Function, args: list[Value], kwargs: dict[str, Value],
                expr: nodes.NodeNG, frame: Frame, unknown_rest: bool = False, in_property: bool = False) -> Value:
    """Inline `function` in a fresh frame, or stand in a summary of an earlier inlining of it
    (the interpreter's `call_function`): a call compiled apart (disabled, mock-patched, opaque,
    under a config patch) breaks at its site instead."""
    node = function.node
    if isinstance(node, nodes.FunctionDef):
        if tx.resolver.is_disabled(node):
            call = tx.graph.python_call(node.qname(), as_args(args), as_kwargs(kwargs), meta=tx.meta(expr, frame))
            tx.graph_break(rules.COMPILER_DISABLED_CALL, call, expr, frame)
            return UNKNOWN
        if tx.resolver.is_mock_patched(node):  # the patcher is in unittest, which dynamo skips
            call = tx.graph.python_call(node.qname(), as_args(args), as_kwargs(kwargs), meta=tx.meta(expr, frame))
            tx.graph_break(rules.SKIPPED_FUNCTION_CALL, call, expr, frame, gb_ids=("GB0007", "GB0008"))
            return UNKNOWN
        if tx.resolver.is_opaque(node):
            return opaque_call(tx, node.qname(), args, kwargs, expr, frame)
    if any(isinstance(value, Tensor) and value.sparse for value in [*args, *kwargs.values()]):
        # Passing it loads the sparse local: dynamo breaks at the call (GB0015), and the
        # callee, run as a frame of its own, breaks again where it uses it (measured:
        # cfg_sparse_kernel_helper.py).
        sparse_operand(tx, tx.graph.python_call(node.qname(), meta=tx.meta(expr, frame)), expr, frame)
    if frame.active(node) or frame.depth >= tx.options.max_inline_depth \
            or not tx.follows(node, frame, function.bound):
        return UNKNOWN
    receiver = function.bound
    if isinstance(node, nodes.FunctionDef) and receiver is None and function.cls is not None \
            and _is_classmethod(node):
        receiver = ClassRef(function.cls)
    key = tx.summary_key(node, receiver, args, kwargs, unknown_rest, in_property, frame)
    summary = tx.state.summaries.get(key) if key is not None else None
    if summary is not None:
        # Inlined before in this file, with arguments of the same kinds: its breaks are
        # already reported; stand in a single node for the call.
        target = receiver.path if isinstance(receiver, Module) and receiver.path else node.qname()
        op = tx.graph.call_module if isinstance(receiver, Module) and node.name == "forward" else tx.graph.call_function
        call = op(target, as_args(args), as_kwargs(kwargs), meta=tx.meta(expr, frame))
        return summary.rebind(call)
    env = bind_arguments(node, receiver, args, kwargs, lambda e: tx.eval_static_expr(e, frame), unknown_rest)
    callee = Frame(node, tx.resolver.source_of(node), env, caller=frame, call_site=expr,
                   closure=function.closure, cls=function.cls)
    if tx.evaluating is not None and tx.evaluating[0] is expr:
        callee.evaluation = tx.evaluating[1]
    callee.resume.is_property = in_property
    if isinstance(receiver, Module):
        callee.receiver_configuration = receiver.configuration()
    if isinstance(node, nodes.FunctionDef) and config_patch(tx.resolver, node) is not None:
        # Dynamo cannot enter the patch's context manager (tables.CONFIG_PATCH_CALL_BREAKS): it breaks at the call,
        # and the function runs as a frame of its own, compiled with the patch on.
        calls = callee.call_stack()
        call = tx.graph.python_call(node.qname(), meta={"origin": Origin(calls.sites[-1], calls)})  # the call
        moved, version = tables.CONFIG_PATCH_CALL_BREAKS, tx.options.torch_version
        tx.graph_break(rules.UNSUPPORTED_CONTEXT_MANAGER, call, expr, callee, gb_ids=moved.at(version),
                       versions=moved.span(version))
    if isinstance(receiver, Module) and node.name == "forward":
        tx.graph.inlined_modules.append(receiver.path)
    tx.run_body(callee)
    result = join_all(callee.returns) if callee.returns else Static(None)
    every_path = every_path_break(callee)
    if every_path is not None:
        tx.breaks.call_breaks(frame, every_path)
    if key is not None and (every_path is None or callee.module is tx.resolver.main):
        # a call into another file that always breaks is reported at each call site
        tx.state.summaries[key] = result
    return result


def _is_classmethod(function: nodes.FunctionDef) -> bool:
    return bool(function.decorators) and any(
        isinstance(d, nodes.Name) and d.name == "classmethod" for d in function.decorators.nodes)


MUTATING_METHODS = frozenset({"append", "extend", "insert", "update", "pop", "setdefault", "clear", "remove"})


def mutates_arguments(function: nodes.FunctionDef | nodes.Lambda) -> bool:
    """Does `function` change a list or dict passed to it (`items.append(x)`, `cache[k] = v`)?"""
    if isinstance(function, nodes.Lambda):
        return False
    cached = _MUTATES.get(function)
    if cached is None:
        params = {name.name for name in function.args.arguments} - {"self"}
        cached = False
        for node in nodes_of_class(function, (nodes.Call, nodes.Subscript)):
            if isinstance(node, nodes.Call):
                func = node.func
                target = func.expr if isinstance(func, nodes.Attribute) and func.attrname in MUTATING_METHODS else None
            else:
                target = node.value if node.ctx in (Context.Store, Context.Del) else None
            if isinstance(target, nodes.Name) and target.name in params:
                cached = True
                break
        _MUTATES[function] = cached
    return cached


# Weak: a strong key would keep every linted file's tree alive for the rest of the process.
_MUTATES: weakref.WeakKeyDictionary[nodes.NodeNG, bool] = weakref.WeakKeyDictionary()
