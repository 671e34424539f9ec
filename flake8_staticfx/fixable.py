"""Which flake8 diagnostics may say "`flake8-staticfx fix` rewrites it".

The lint cannot ask the rewrites themselves: they work on LibCST's tree, and importing libcst
costs more than analysing a typical file, on every editor keystroke. So this module decides, on
the `ast` tree flake8 already parsed, the one form whose legality needs nothing else: the
side-effect guard of guard.py (a print, logging or warnings.warn statement alone on its line,
with arguments free of side effects). It is only ever a subset of what `fix` rewrites
(tests/test_fix.py checks every case); the other forms are announced per occurrence by the
JSON and HTML output and by `fix --diff`.
"""
from __future__ import annotations

import ast
import os
from collections.abc import Iterator

from .tables import LOGGER_METHODS

GUARDED_CODES = frozenset({"SFX201", "SFX202", "SFX203"})
# Calls that change state: skipping an argument that makes one would change the program.
MUTATING_METHODS = frozenset({"append", "extend", "pop", "popitem", "update", "add", "remove", "insert",
                              "clear", "setdefault", "discard", "write", "send", "step", "zero_", "copy_",
                              "fill_", "add_", "mul_", "sub_", "div_"})


def side_effect_kind(dotted: str) -> str | None:
    """"print", "warnings.warn" or "logging" for the dotted name of a called function, else None."""
    owner, _, attr = dotted.rpartition(".")
    if not owner:
        return {"print": "print", "warn": "warnings.warn"}.get(attr)
    if owner == "warnings" and attr == "warn":
        return "warnings.warn"
    if attr in LOGGER_METHODS and owner.split(".")[-1].lower() in (
            "logger", "log", "_logger", "logging", "_log"):
        return "logging"
    if attr in LOGGER_METHODS and attr != "isEnabledFor" and "log" in owner.lower():
        return "logging"
    return None


def announced_fixes(tree: ast.Module | None, path: str, regions) -> set[tuple[int, int, str]]:
    """(line, col, code) of the regions whose guard `fix` is sure to add."""
    candidates = [r for r in regions if r.code in GUARDED_CODES
                  and os.path.abspath(r.construct_file) == os.path.abspath(path)]
    if tree is None or not candidates:
        return set()
    statements = _call_statements(tree)
    found = set()
    for region in candidates:
        call = statements.get((region.line, region.col))
        if call is not None and _guardable(call):
            found.add((region.line, region.col, region.code))
    return found


def _call_statements(tree: ast.Module) -> dict[tuple[int, int], ast.Call]:
    """Calls that are a statement alone on its line, or the whole test of an `if`
    (`if logger.isEnabledFor(...)`), by where the call starts."""
    found = {}
    for node in _statement_holders(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Call):
            found[(node.test.lineno, node.test.col_offset)] = node.test
        body = [s for field in ("body", "orelse", "finalbody") if isinstance(getattr(node, field, None), list)
                for s in getattr(node, field) if isinstance(s, ast.stmt)]
        lines = [s.lineno for s in body]
        for statement in body:
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) \
                    and lines.count(statement.lineno) == 1:
                found[(statement.value.lineno, statement.value.col_offset)] = statement.value
    return found


_STATEMENT_KINDS = (ast.stmt, ast.excepthandler, ast.match_case)


def _statement_holders(tree: ast.Module) -> Iterator[ast.AST]:
    """The module and every statement, except-handler and match case: what `ast.walk` gives
    that has a body of statements or an `if` test, without walking the expressions."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        yield node
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            children = getattr(node, name, None)
            if isinstance(children, list):
                stack.extend(child for child in children if isinstance(child, _STATEMENT_KINDS))


def _guardable(call: ast.Call) -> bool:
    dotted = _dotted(call.func)
    if dotted is None or side_effect_kind(dotted) is None:
        return False
    return not any(_has_side_effect(arg) for arg in (*call.args, *(k.value for k in call.keywords)))


def _has_side_effect(expr: ast.expr) -> bool:
    """The same test as base.side_effect, on `ast` nodes."""
    for sub in ast.walk(expr):
        if isinstance(sub, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)):
            return True
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr in MUTATING_METHODS:
            return True
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in ("next", "setattr"):
            return True
    return False


def _dotted(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        inner = _dotted(expr.value)
        return f"{inner}.{expr.attr}" if inner else None
    return None
