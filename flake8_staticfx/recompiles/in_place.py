"""A tensor a driver writes in place (`x[i] = v`, `x_[:, :classes] *= 0.0`): its shape stays,
and under grad mode it requires grad from then on where what is written does (measured with
torch 2.13: a model's output written into a buffer passed back makes the next call recompile,
`tensor 'memory' requires_grad mismatch`; tests/test_recompiles_values.py)."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from .shapes import requires_grad
from .stops import StopReplay
from .values import TensorValue

if TYPE_CHECKING:
    from .drivers import Replay


def write_in_place(replay: Replay, target: ast.Subscript, value, env: dict) -> None:
    """`target` written with `value`: the tensor at the root of the subscripts (`memory` of
    `memory[0][1:]`), else the tensor the last subscript reads from (an item of a list)."""
    base = target.value
    while isinstance(base, ast.Subscript):
        base = base.value
    tensor = replay.expr(base, env)
    if not isinstance(tensor, TensorValue):
        tensor = replay.expr(target.value, env)
    if not isinstance(tensor, TensorValue):
        raise StopReplay("an item written into what is no tensor")
    tensor.write(requires_grad(value), replay.grad_mode == "grad")
