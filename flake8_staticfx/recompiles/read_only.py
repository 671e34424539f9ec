"""A project function that only reads what it is given, judged from its syntax: where the driver
replay stops inside one (project_calls.py), nothing the replay keeps can have changed, so the
call gives an unknown object (values.Unfollowed) and the driver goes on. minGPT's
`configure_optimizers` is one: it walks `named_modules()` and `named_parameters()` into sets of
names and returns a new optimizer.

It may bind names, fill containers it made itself (`decay.add(fpn)`), call builtins, methods
that only read (`named_parameters`, `endswith`, `keys`), torch.optim's constructors and other
such functions of the file; it may not write an attribute or an item of anything else, call
anything else (a module, a compiled function, a torch function that could change a setting), or
return anything but what it made (an optimizer, a container, a number), which the caller could
otherwise change through."""
from __future__ import annotations

import ast

from .syntax import dotted

MAX_DEPTH = 4  # project functions checked within one another
READING_BUILTINS = frozenset({
    "set", "list", "dict", "tuple", "sorted", "len", "isinstance", "str", "int", "float", "bool", "sum", "min", "max",
    "any", "all", "zip", "enumerate", "range", "abs", "round", "repr", "format", "frozenset"})
READING_METHODS = frozenset({
    "named_modules", "named_parameters", "parameters", "modules", "children", "named_children", "buffers",
    "named_buffers", "endswith", "startswith", "keys", "values", "items", "get", "split", "join", "format", "lower",
    "upper", "strip", "numel", "dim", "size", "copy", "union", "intersection", "difference"})
FILLING_METHODS = frozenset({"add", "append", "update", "extend", "discard", "remove", "insert", "setdefault"})
FRESH_MAKERS = frozenset({"set", "list", "dict", "tuple", "sorted", "frozenset"})
_FRESH_NODES = (ast.Set, ast.List, ast.Dict, ast.Tuple, ast.ListComp, ast.SetComp, ast.DictComp, ast.Constant,
                ast.JoinedStr)


def reads_only(function: ast.FunctionDef, functions: dict[str, ast.FunctionDef], depth: int = 0) -> bool:
    """Whether calling `function` changes nothing it did not make (`functions`: the file's own,
    which it may call when they only read too)."""
    if depth > MAX_DEPTH or function.decorator_list and not _static(function):
        return False
    made = _made_here(function)
    for node in ast.walk(function):
        if isinstance(node, (ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await, ast.Delete, ast.Lambda)):
            return False
        if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, ast.Store) and not (
                isinstance(node, ast.Subscript) and _root(node) in made):
            return False
        if isinstance(node, ast.Call) and not _reading_call(node, made, functions, depth):
            return False
        if isinstance(node, ast.Return) and node.value is not None and not _fresh(node.value, made):
            return False
    return True


def _static(function: ast.FunctionDef) -> bool:
    return [dotted(d) for d in function.decorator_list] == ["staticmethod"]


def _made_here(function: ast.FunctionDef) -> set[str]:
    """The names the function binds only to what it makes: literals, comprehensions, fresh
    containers and torch.optim objects (a name also bound to anything else is not one)."""
    bound: dict[str, bool] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for name, value in _pairs(target, node.value):
                    bound[name] = bound.get(name, True) and value is not None and _fresh(value, set())
        elif isinstance(node, (ast.For, ast.comprehension, ast.AugAssign, ast.AnnAssign, ast.With, ast.NamedExpr)):
            targets = [node.target] if not isinstance(node, ast.With) else [
                item.optional_vars for item in node.items if item.optional_vars is not None]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        bound[name.id] = False
    params = {a.arg for a in (*function.args.args, *function.args.kwonlyargs)}
    return {name for name, fresh in bound.items() if fresh and name not in params}


def _pairs(target: ast.expr, value: ast.expr | None) -> list[tuple[str, ast.expr | None]]:
    """The names a target binds, each with the expression it gets where the syntax shows it
    (`decay, no_decay = set(), set()`), None where it does not."""
    if isinstance(target, ast.Name):
        return [(target.id, value)]
    if isinstance(target, (ast.Tuple, ast.List)):
        values = value.elts if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) \
            else [None] * len(target.elts)
        return [pair for element, item in zip(target.elts, values) for pair in _pairs(element, item)]
    return [(name.id, None) for name in ast.walk(target) if isinstance(name, ast.Name)]


def _fresh(node: ast.expr, made: set[str]) -> bool:
    """An expression that makes a new object (or names one the function made)."""
    if isinstance(node, ast.Name):
        return node.id in made
    if isinstance(node, ast.Call):
        name = dotted(node.func)
        return name in FRESH_MAKERS or name.startswith(("torch.optim.", "optim.")) and name.split(".")[-1][:1].isupper()
    return isinstance(node, _FRESH_NODES) or isinstance(node, (ast.BinOp, ast.Compare, ast.BoolOp, ast.UnaryOp))


def _reading_call(call: ast.Call, made: set[str], functions: dict[str, ast.FunctionDef], depth: int) -> bool:
    name = dotted(call.func)
    if isinstance(call.func, ast.Name):
        if name in READING_BUILTINS:
            return True
        return name in functions and reads_only(functions[name], functions, depth + 1)
    if name.startswith(("torch.optim.", "optim.")) and name.split(".")[-1][:1].isupper():
        return True  # a new optimizer over the parameters given
    if isinstance(call.func, ast.Attribute):
        if call.func.attr in READING_METHODS:
            return True
        return call.func.attr in FILLING_METHODS and _root(call.func.value) in made
    return False


def _root(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None
