"""The project code a driver calls, replayed (drivers.py): a function inlined with its
arguments bound (one the replay stops in that only reads what it is given, read_only.py, gives
an unknown object rather than stopping the driver), a class constructed by replaying its
`__init__` (a statement not followed leaves an opaque attribute, declarations.forget, rather
than stopping the driver)."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from .declarations import dataclass_fields, forget, grad_decorator, is_super_init
from .read_only import reads_only
from .stops import Returned, StateChange, StopInside, StopReplay
from .syntax import dotted
from .unfollowed import forget_read
from .values import Const, DictValue, Instance, ListValue, Unfollowed

if TYPE_CHECKING:
    from .drivers import Replay

MAX_INLINE_DEPTH = 8  # project functions called within one another from a driver


def inline(replay: Replay, function: ast.FunctionDef, args: list, kwargs: dict, outer: dict):
    """A function of the project called by a driver: its body replayed with the arguments
    (a grad-mode decorator sets the mode for it; any other decorator is not followed)."""
    modes = [grad_decorator(d) for d in function.decorator_list]
    if None in modes:
        raise StopReplay("decorated function")
    replay.depth += 1
    saved = replay.grad_mode, replay.may_have_broken, replay.may_have_returned
    try:
        if replay.depth > MAX_INLINE_DEPTH:
            raise StopReplay("calls too deep")
        env = {**outer, **bind(function, args, kwargs, replay)}
        replay.grad_mode = modes[-1] if modes else replay.grad_mode
        replay.block(function.body, env)
    except Returned as returned:
        return returned.value
    except StateChange:
        raise
    except StopReplay as stop:
        if reads_only(function, replay.functions):
            return Unfollowed()  # it changed nothing the replay keeps: only what it returns is not known
        raise StopInside(str(stop)) from stop
    finally:
        replay.depth -= 1
        replay.grad_mode, replay.may_have_broken, replay.may_have_returned = saved
    return Const(None)


def construct(replay: Replay, cls: ast.ClassDef, args: list, kwargs: dict) -> Instance:
    """An instance of a class of the project: its `__init__` replayed statement by statement (or
    a dataclass's fields bound)."""
    instance = Instance(cls, {})
    init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    if init is None:
        if any(dotted(d.func if isinstance(d, ast.Call) else d).endswith("dataclass") for d in cls.decorator_list):
            fields = dataclass_fields(cls, args, kwargs, lambda node: replay.expr(node, {}))
            if fields is None:
                raise StopReplay("dataclass field")
            instance.attributes.update(fields)
        return instance
    env = bind(init, [instance, *args], kwargs, replay)
    for statement in init.body:
        if is_super_init(statement):
            continue
        try:
            _init_statement(replay, statement, instance, env)
        except StateChange:
            raise
        except (StopReplay, ArithmeticError, TypeError, ValueError, IndexError, KeyError):
            forget(statement, instance, env)
            forget_read(statement, lambda name: replay.name_value(name, env))
    return instance


def _init_statement(replay: Replay, statement: ast.stmt, instance: Instance, env: dict) -> None:
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) and isinstance(
            statement.value.func, ast.Attribute) and statement.value.func.attr == "register_buffer":
        name, *rest = statement.value.args
        if isinstance(name, ast.Constant) and rest:
            instance.attributes[name.value] = replay.expr(rest[0], env)
            return
    replay.statement(statement, env)


def bind(function: ast.FunctionDef, args: list, kwargs: dict, replay: Replay) -> dict:
    """The parameters of `function` bound to a call's arguments, defaults replayed; its `*args`
    and `**kwargs` take what no named parameter did (`**sampling_kwargs`, a subclass's
    `__init__(self, *args, **kwargs)`)."""
    params = function.args.args
    named = {a.arg for a in (*params, *function.args.kwonlyargs)}
    extra_args, args = ListValue(args[len(params):]), args[:len(params)]
    extra_kwargs = DictValue({key: value for key, value in kwargs.items() if key not in named})
    kwargs = {key: value for key, value in kwargs.items() if key in named}
    if extra_args.items and not function.args.vararg or extra_kwargs.items and not function.args.kwarg:
        raise StopReplay("arguments that bind to no parameter")
    defaults = dict(zip([p.arg for p in params[len(params) - len(function.args.defaults):]],
                        function.args.defaults))
    env = {}
    for index, param in enumerate(params):
        if index < len(args):
            env[param.arg] = args[index]
        elif param.arg in kwargs:
            env[param.arg] = kwargs[param.arg]
        elif param.arg in defaults:
            env[param.arg] = replay.expr(defaults[param.arg], {})
        else:
            raise StopReplay("missing argument")
    for param, default in zip(function.args.kwonlyargs, function.args.kw_defaults):
        if param.arg in kwargs:
            env[param.arg] = kwargs[param.arg]
        elif default is not None:
            env[param.arg] = replay.expr(default, {})
        else:
            raise StopReplay("missing argument")
    for extra, value in ((function.args.vararg, extra_args), (function.args.kwarg, extra_kwargs)):
        if extra is not None:
            env[extra.arg] = value
    return env
