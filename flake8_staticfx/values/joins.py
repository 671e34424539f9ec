"""What a variable is after two paths merge."""
from __future__ import annotations

from .base import UNKNOWN, Value
from .modules import Module
from .objects import Function
from .static import Static
from .tensors import NdArray, Tensor


def join(a: Value, b: Value) -> Value:
    """The value of a variable after two paths merge."""
    if a is b:
        return a
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        return Tensor(b.node, weak=a.weak or b.weak, is_bool=a.is_bool and b.is_bool,
                      scalar=a.scalar and b.scalar)
    if isinstance(a, NdArray) and isinstance(b, NdArray):
        return NdArray(holds_data=a.holds_data or b.holds_data)
    if isinstance(a, Static) and isinstance(b, Static):
        if a.node is not b.node:
            return Static()
        if a.known and b.known and type(a.value) is type(b.value):
            try:
                if a.value == b.value:
                    return a if not b.assumed else b
            except Exception:  # noqa: BLE001 - arbitrary __eq__ of a static value
                pass
        return Static()
    if isinstance(a, Module) and isinstance(b, Module) and a.path == b.path:
        return a
    if isinstance(a, Function) and isinstance(b, Function) and a.node is b.node:
        return a
    return UNKNOWN


def join_attributes(a: dict, b: dict) -> dict:
    """Attributes (or fields, or written values) after two paths meet: one set on a single
    path only is not known."""
    return {key: join(a[key], b[key]) if key in a and key in b else UNKNOWN for key in {**a, **b}}


def join_all(values: list[Value]) -> Value:
    result = values[0]
    for value in values[1:]:
        result = join(result, value)
    return result
