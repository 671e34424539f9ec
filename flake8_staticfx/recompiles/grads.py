"""Whether a tensor a forward computes requires grad, where its shape is not followed (effects.py):
dynamo guards requires_grad exactly (cache.py's lower bound reads it), and it follows from the
operands alone. A result is known to require grad when an operand or a parameter it uses does
(under grad mode), known not to when none does, and not known when an operand is not followed."""
from __future__ import annotations

import ast

from .shapes import CONVOLUTIONS, ELEMENTWISE, PARAMETER_LAYERS, REARRANGING_METHODS, REDUCTIONS, SAME_SHAPE_METHODS, \
    SHAPE_LAYERS, UNGRADED_METHODS, requires_grad
from .syntax import dotted
from .values import Const, TensorValue

# Tensor methods, torch functions and torch.nn layers whose result is one tensor whatever the
# shapes (an nn.LSTM's tuple, `size()` and `chunk` are not).
TENSOR_METHODS = SAME_SHAPE_METHODS | REDUCTIONS | REARRANGING_METHODS | frozenset({
    "view", "reshape", "expand", "transpose", "t", "narrow", "norm", "matmul", "mm", "bmm", "mul", "add", "sub",
    "div", "pow", "masked_fill"})
TENSOR_FUNCTIONS = ELEMENTWISE | frozenset({"cat", "concat", "stack", "mm", "bmm", "matmul", "einsum", "linear"})
TENSOR_LAYERS = SHAPE_LAYERS | PARAMETER_LAYERS | frozenset(CONVOLUTIONS)


def method_grad(owner: TensorValue, name: str, args: list, grad_enabled: bool) -> bool | None:
    """Whether `owner.<name>(*args)` requires grad: as its operands do, never after `detach()`,
    as `requires_grad_(flag)` says (in any grad mode: a flag, not an operation)."""
    if name == "requires_grad_":
        return True if not args else bool(args[0].value) if isinstance(args[0], Const) else None
    return False if name in UNGRADED_METHODS else grad_enabled and requires_grad(owner, *args)


def method_result(owner: TensorValue, name: str, args: list, grad_enabled: bool) -> TensorValue | None:
    """`owner.<name>(*args)` of a shape not followed: a tensor, None for a method not listed."""
    if name not in TENSOR_METHODS and name != "requires_grad_":
        return None
    return TensorValue(None, method_grad(owner, name, args, grad_enabled))


def function_result(name: str, args: list, kwargs: dict, grad_enabled: bool) -> TensorValue | None:
    """`torch.<name>(...)` of shapes not followed: a tensor, None for a function not listed."""
    return TensorValue(None, grad_enabled and requires_grad(*args, *kwargs.values())) if name in TENSOR_FUNCTIONS \
        else None


def layer_result(name: str, args: list, grad_enabled: bool) -> TensorValue | None:
    """A torch.nn layer called on an input of a shape not followed: its parameters require grad."""
    if name not in TENSOR_LAYERS or not args:
        return None
    return TensorValue(None, grad_enabled and (True if name in PARAMETER_LAYERS else requires_grad(args[0])))


def inherited_parameter(cls: ast.ClassDef, name: str) -> TensorValue | None:
    """`self.weight` of a class deriving from a torch.nn layer with parameters (forward-forward's
    `class Layer(nn.Linear)`): a parameter of a shape not followed."""
    if name in ("weight", "bias") and any(dotted(base).split(".")[-1] in PARAMETER_LAYERS for base in cls.bases):
        return TensorValue(None, True)
    return None
