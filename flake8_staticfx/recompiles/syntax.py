"""Readings of the source's syntax that the driver replay, the frame reader and the effects
reader share."""
from __future__ import annotations

import ast

from ..tables import STATIC_FUNCTIONS


def dotted(node: ast.expr) -> str:
    """`torch.nn.functional.relu` for that attribute chain; '' for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base else ""
    return ""


def forward_of(cls: ast.ClassDef) -> ast.FunctionDef | None:
    return next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "forward"), None)


def is_self_attribute(node: ast.AST) -> bool:
    """`self.<name>`."""
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def frame_line(frame: ast.FunctionDef) -> int:
    """The line dynamo names a frame by, and gives a guard without a line of its own: its code's
    co_firstlineno, the first decorator's line (`@torch.compile()` above a block's forward)."""
    return min([frame.lineno, *(d.lineno for d in frame.decorator_list)])


def compiling_branch(stmt: ast.If) -> list[ast.stmt] | None:
    """The branch dynamo takes on a test it decides (`if not torch.compiler.is_compiling():`,
    `if torch.jit.is_scripting():`; tables.STATIC_FUNCTIONS); None for another test."""
    test, negated = stmt.test, False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negated = test.operand, True
    outcome = STATIC_FUNCTIONS.get(dotted(test.func)) if isinstance(test, ast.Call) and not test.args else None
    if not isinstance(outcome, bool):
        return None
    return stmt.body if outcome != negated else stmt.orelse


def is_training_test(stmt: ast.If) -> bool:
    """`if self.training:` without an else."""
    return is_self_attribute(stmt.test) and stmt.test.attr == "training" and not stmt.orelse
