"""A driver statement the replay does not follow (a config object built by a library, a model
loaded, `isinstance(prompt, str)`): rather than giving up on the driver, the names it binds
become unknown, as long as nothing else it could have changed is one the replay keeps. A compiled
call later whose guards read one of those names claims nothing for it (cache.py); the other
inputs' recompiles still hold."""
from __future__ import annotations

import ast

from .values import Const, Function, Number, Unknown

# What a statement not followed may read without the replay losing track: values no call can
# change in place (a number, a named function or module, a class of the file: the replay keeps
# no class-level state), and values it already forgot.
_IMMUTABLE = (Const, Number, Function, ast.ClassDef)


def forgotten_names(statement: ast.stmt, lookup, forgotten: set[str]) -> list[str] | None:
    """The names `statement` binds, to be made unknown; None when it may have changed an object
    the replay keeps (a model, a list, a tensor passed to it or written through it), or dynamo's
    own state (a torch function, a torch setting), or runs code the replay would have to follow.
    `lookup(name)` gives a name's value; `forgotten` holds the names made unknown before."""
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, (ast.AugAssign, ast.AnnAssign)) and statement.value is not None:
        targets = [statement.target]
    elif isinstance(statement, ast.Return) and statement.value is not None:
        targets = []  # `return CN(...)`: the caller's name for it is unknown
    elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) and _root(
            statement.value.func) in forgotten:
        targets = []  # `config.merge_from_dict(d)`: a method of an object already unknown
    else:
        return None  # a bare call, a loop, a branch: what it does is the point of it
    bound = []
    for target in targets:
        for node in ast.walk(target):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                bound.append(node.id)
            elif isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, ast.Store) \
                    and _root(node) not in forgotten:
                return None  # an attribute or item of an object the replay keeps
    for node in ast.walk(statement):
        if isinstance(node, ast.Call) and _dotted_root(node.func) == "torch":
            return None  # a torch function not followed may change what dynamo guards
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and not _unchangeable(
                lookup(node.id), node.id in forgotten):
            return None
    return bound


def _unchangeable(value, forgotten: bool) -> bool:
    return isinstance(value, _IMMUTABLE) or isinstance(value, Unknown) and forgotten


def _root(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _dotted_root(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None
