"""What a variable is after two paths merge: what the two values' kinds agree on (each kind's
`joined`), else unknown."""
from __future__ import annotations

from .base import UNKNOWN, Value


def join(a: Value, b: Value) -> Value:
    """The value of a variable after two paths merge."""
    if a is b:
        return a
    return a.joined(b) or b.joined(a) or UNKNOWN


def join_attributes(a: dict, b: dict) -> dict:
    """Attributes (or fields, or written values) after two paths meet: one set on a single
    path only is not known."""
    return {key: join(a[key], b[key]) if key in a and key in b else UNKNOWN for key in {**a, **b}}


def join_all(values: list[Value]) -> Value:
    result = values[0]
    for value in values[1:]:
        result = join(result, value)
    return result
