"""Python's own operations on the numbers a driver computes (the replay's Const values):
arithmetic, comparisons, builtins and math, folded where every operand is known; None where
one is not (the replay then stops)."""
from __future__ import annotations

import ast
import math
import operator

from .values import Const, ListValue, Number, TensorValue, numeric

ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
              ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
           ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not}
BUILTINS = ("range", "enumerate", "len", "float", "int", "min", "max", "abs", "round", "reversed", "list", "tuple",
            "sum", "str", "zip")
MATH_CONSTANTS = frozenset({"math.pi", "math.e", "math.inf", "math.tau"})
MATH_FUNCTIONS = frozenset(f"math.{name}" for name in (
    "cos", "sin", "exp", "log", "sqrt", "floor", "ceil", "pow", "log2", "log10", "tanh"))


def fold(op, *operands) -> Const | None:
    if all(isinstance(o, Const) for o in operands):
        try:
            return Const(op(*(o.value for o in operands)))
        except (ArithmeticError, TypeError, ValueError):
            pass
    return None


def math_call(name: str, args: list) -> Const | Number | None:
    """`math.cos(x)` & co on known numbers (a learning-rate schedule's cosine); on a number not
    known, a number (`log10(1 / mse.item())`)."""
    if name in MATH_FUNCTIONS and args and all(numeric(a) for a in args) and Number() in args:
        return Number()
    return fold(getattr(math, name.split(".")[-1]), *args) if name in MATH_FUNCTIONS else None


def math_constant(name: str) -> Const | None:
    return Const(getattr(math, name.split(".")[-1])) if name in MATH_CONSTANTS else None


def builtin(name: str, args: list):
    """One of BUILTINS on known values, a list's items or a tensor's length."""
    if name in ("min", "max", "int", "float", "abs", "round") and args and all(numeric(a) for a in args) \
            and Number() in args:
        return Number()  # a number not followed stays one
    values = []
    for arg in args:
        if isinstance(arg, Const):
            values.append(arg.value)
        elif name in ("enumerate", "len", "list", "tuple", "zip") and isinstance(arg, ListValue):
            values.append(arg.items)
        elif name == "sum" and isinstance(arg, ListValue) and all(isinstance(item, Const) for item in arg.items):
            values.append(tuple(item.value for item in arg.items))  # `sum(params.axes_dim)`
        elif name == "len" and isinstance(arg, TensorValue) and arg.shape and isinstance(arg.shape[0], int):
            values.append(range(arg.shape[0]))
        else:
            return None
    if name == "enumerate":
        items = values[0] if isinstance(args[0], ListValue) else [Const(item) for item in values[0]]  # a range's ints
        return ListValue([ListValue([Const(i), item]) for i, item in enumerate(items)])
    if name == "zip":  # FLUX's `zip(timesteps[:-1], timesteps[1:])`: pairs, as many as the shortest has
        rows = [items if isinstance(arg, ListValue) else [Const(item) for item in items]
                for arg, items in zip(args, values)]
        return ListValue([ListValue(list(pair)) for pair in zip(*rows)])
    if name == "range":
        return Const(range(*values))
    if name in ("list", "tuple") and len(values) == 1:  # `list(range(1, n))`: a tuple stands for both
        return ListValue(list(values[0])) if isinstance(values[0], list) else Const(tuple(values[0]))
    if name == "reversed":
        return Const(tuple(reversed(values[0])))
    return Const({"len": len, "float": float, "int": int, "min": min, "max": max, "abs": abs,
                  "round": round, "sum": sum, "str": str}[name](*values))
