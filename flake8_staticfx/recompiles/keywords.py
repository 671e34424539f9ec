"""What a compiled frame's guards check of the keywords its `**kwargs` takes, when all it does
with them is spread them into functions of the file (gpt-fast's `decode_one_token(model, x,
input_pos, **sampling_kwargs)` calling `sample(logits, **sampling_kwargs)`): each keyword binds a
parameter of that function, and the parameter's use there decides the guard, followed through
functions it is passed on to unchanged (`sample` hands `temperature` to `logits_to_probs`, whose
`max(temperature, 1e-5)` guards it). Measured (tuned/keywords_read_by_frame.py): dynamo names the
guard `options['scale']` at the helper's line."""
from __future__ import annotations

import ast
from dataclasses import replace

from .frames import Guarded, guarded_inputs

MAX_DEPTH = 4  # functions a parameter is passed on through


def spread_into(frame: ast.FunctionDef, functions: dict[str, ast.FunctionDef]) -> list[ast.FunctionDef] | None:
    """The functions of the file the frame spreads its `**kwargs` into; None when it reads them
    any other way (or has none)."""
    if frame.args.kwarg is None:
        return None
    name = frame.args.kwarg.arg
    calls = [node for node in ast.walk(frame) if isinstance(node, ast.Call)
             and any(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == name for k in node.keywords)]
    reads = sum(1 for node in ast.walk(frame) if isinstance(node, ast.Name) and node.id == name)
    if reads != len(calls) or not all(isinstance(c.func, ast.Name) and c.func.id in functions for c in calls):
        return None
    return [functions[call.func.id] for call in calls]


def followed(frame: ast.FunctionDef, functions: dict[str, ast.FunctionDef], keywords: dict) -> bool:
    """Whether every keyword given binds a named parameter of a function the frame spreads them
    into (one its own `**kwargs` takes is not followed)."""
    targets = spread_into(frame, functions)
    names = {a.arg for target in targets or [] for a in (*target.args.args, *target.args.kwonlyargs)}
    return targets is not None and set(keywords) <= names


def keyword_guards(frame: ast.FunctionDef, is_method: bool, functions: dict[str, ast.FunctionDef]) -> list[Guarded]:
    """A guard per parameter the keywords may bind, reading the keyword's value (`item`) from the
    frame's `**kwargs` input, which follows its named parameters."""
    slot = len(frame.args.args) - (1 if is_method else 0)
    found: dict[str, Guarded] = {}
    for target in spread_into(frame, functions) or []:
        for param in (*target.args.args, *target.args.kwonlyargs):
            guard = found.get(param.arg) or _parameter_guard(target, param.arg, functions, 0)
            if guard is not None:
                found[param.arg] = replace(guard, name=f"{frame.args.kwarg.arg}['{param.arg}']", index=slot,
                                           item=param.arg)
    return list(found.values())


def _parameter_guard(function: ast.FunctionDef, name: str, functions: dict[str, ast.FunctionDef],
                     depth: int) -> Guarded | None:
    """How `function`'s parameter `name` is guarded: where it is only passed on, unchanged, to one
    function of the file, that function's use of it."""
    reads = [node for node in ast.walk(function) if isinstance(node, ast.Name) and node.id == name
             and isinstance(node.ctx, ast.Load)]
    passed = [(call, _bound(call, name, functions)) for call in ast.walk(function) if isinstance(call, ast.Call)]
    passed = [(call, bound) for call, bound in passed if bound is not None]
    if len(reads) == len(passed) == 1 and depth < MAX_DEPTH:
        call, bound = passed[0]
        return _parameter_guard(functions[call.func.id], bound, functions, depth + 1)
    return next((g for g in guarded_inputs(function, False) if g.name == name and g.index is not None), None)


def _bound(call: ast.Call, name: str, functions: dict[str, ast.FunctionDef]) -> str | None:
    """The parameter of the file's function `call` calls that the bare name `name` binds."""
    if not (isinstance(call.func, ast.Name) and call.func.id in functions):
        return None
    params = [a.arg for a in functions[call.func.id].args.args]
    for index, arg in enumerate(call.args):
        if isinstance(arg, ast.Name) and arg.id == name:
            return params[index] if index < len(params) else None
    return next((k.arg for k in call.keywords if isinstance(k.value, ast.Name) and k.value.id == name
                 and k.arg is not None), None)
