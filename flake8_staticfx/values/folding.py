"""Computing static values as Python would, bounded so that no input can hang the linter."""
from __future__ import annotations

import builtins
import operator
from typing import Any

from .base import NOTHING

MAX_FOLDED_SIZE = 10_000  # items of a folded sequence, bits of a folded int


def fold(function: Any, *values: Any, **keywords: Any) -> Any:
    """Compute a static value as Python would, or NOTHING when that fails or could be huge
    (`2 ** 10 ** 10` must not hang the linter, nor `"a" * 10 ** 9` fill its memory)."""
    if not _small_result(function, values):
        return NOTHING
    try:
        result = function(*values, **keywords)
    except Exception:  # noqa: BLE001 - any Python value
        return NOTHING
    if isinstance(result, (str, bytes, tuple, list)) and len(result) > MAX_FOLDED_SIZE:
        return NOTHING
    return result


def _small_result(function: Any, values: tuple) -> bool:
    """Can the result of `function(*values)` be bounded before computing it?"""
    if function in (operator.pow, builtins.pow) and len(values) >= 2:
        base, exponent = values[0], values[1]
        if isinstance(base, int) and isinstance(exponent, int) and abs(base) > 1:
            return exponent <= MAX_FOLDED_SIZE // max(base.bit_length(), 1)
        return not (isinstance(exponent, int) and exponent > MAX_FOLDED_SIZE and isinstance(base, float))
    if function is operator.lshift and len(values) == 2:
        return isinstance(values[1], int) and values[1] <= MAX_FOLDED_SIZE
    if function is operator.mul and len(values) == 2:
        for sequence, count in (values, values[::-1]):
            if isinstance(sequence, (str, bytes, tuple, list)) and isinstance(count, int):
                return len(sequence) * count <= MAX_FOLDED_SIZE
        if all(isinstance(v, int) for v in values):
            return sum(v.bit_length() for v in values) <= MAX_FOLDED_SIZE
    return True


def printable(value: Any) -> bool:
    """Is a static value short and plain enough to print as a node argument?"""
    return value is None or isinstance(value, (bool, int, float, str, slice)) and (
        not isinstance(value, str) or len(value) < 80)
