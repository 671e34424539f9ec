"""Readings of the source's syntax that the driver replay, the frame reader and the effects
reader share."""
from __future__ import annotations

import ast


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
