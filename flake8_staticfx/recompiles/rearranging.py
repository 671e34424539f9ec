"""The shapes of tensors whose dimensions are reordered, merged, split, added or repeated:
`permute`, `flatten`, `unsqueeze`, `squeeze`, `repeat`, `chunk`, `split` into given sizes,
`torch.einsum` with an explicit output, and einops' `rearrange` and `repeat` (what their pattern
strings say). Shapes are tuples of ints; every function returns None where the result does not
follow from what is known (shapes.py turns that into ShapeUnknown). Whether a result is a view
with its own strides is the caller's (shapes.RESTRIDED_METHODS)."""
from __future__ import annotations

import math
import re

_AXIS = re.compile(r"\(|\)|\.\.\.|[A-Za-z_][A-Za-z0-9_]*|\d+")


def rearranged(shape: tuple, name: str, numbers: list, options: dict) -> tuple | None:
    """`x.<name>(*numbers, **options)` of a tensor of `shape` (ints all), for permute, flatten,
    unsqueeze, squeeze and repeat; `numbers` and `options` are ints or tuples of ints (None
    where not known)."""
    rank = len(shape)
    if name == "permute":
        dims = numbers[0] if len(numbers) == 1 and isinstance(numbers[0], tuple) else tuple(numbers)
        if None in dims or sorted(d % rank for d in dims) != list(range(rank)):
            return None
        return tuple(shape[d] for d in dims)
    if name == "flatten":
        start = options.get("start_dim", numbers[0] if numbers else 0)
        end = options.get("end_dim", numbers[1] if len(numbers) > 1 else -1)
        if not (isinstance(start, int) and isinstance(end, int)) or rank == 0:
            return None
        start, end = start % rank, end % rank
        return (*shape[:start], math.prod(shape[start:end + 1]), *shape[end + 1:]) if start <= end else None
    if name == "unsqueeze" and len(numbers) == 1 and isinstance(numbers[0], int):
        at = numbers[0] % (rank + 1)
        return (*shape[:at], 1, *shape[at:])
    if name == "squeeze" and len(numbers) == 1 and isinstance(numbers[0], int) and rank:
        at = numbers[0] % rank
        return shape[:at] + shape[at + 1:] if shape[at] == 1 else shape
    if name == "repeat":
        times = numbers[0] if len(numbers) == 1 and isinstance(numbers[0], tuple) else tuple(numbers)
        if None in times or len(times) < rank:
            return None
        padded = (1,) * (len(times) - rank) + shape
        return tuple(size * count for size, count in zip(padded, times))
    return None


def pieces(shape: tuple, name: str, numbers: list, options: dict) -> list[tuple] | None:
    """The shapes `x.chunk(n, dim)` or `x.split([a, b], dim)` returns."""
    dim = options.get("dim", numbers[1] if len(numbers) > 1 else 0)
    if not shape or not numbers or not isinstance(dim, int):
        return None
    axis, first = dim % len(shape), numbers[0]
    if name == "chunk" and isinstance(first, int) and first > 0:
        step = -(-shape[axis] // first)
        sizes = [min(step, shape[axis] - start) for start in range(0, shape[axis], step)]
    elif name == "split" and isinstance(first, tuple) and None not in first and sum(first) == shape[axis]:
        sizes = list(first)
    else:
        return None
    return [(*shape[:axis], size, *shape[axis + 1:]) for size in sizes]


def einsum(equation: str, shapes: list[tuple]) -> tuple | None:
    """`torch.einsum("nhwpqc->nchpwq", x)`: each output letter's size, read from the inputs."""
    if "->" not in equation or "." in equation:
        return None
    inputs, output = equation.replace(" ", "").split("->")
    terms = inputs.split(",")
    if len(terms) != len(shapes):
        return None
    sizes: dict = {}
    for term, shape in zip(terms, shapes):
        if len(term) != len(shape):
            return None
        for letter, size in zip(term, shape):
            if sizes.setdefault(letter, size) != size and 1 not in (size, sizes[letter]):
                return None
            sizes[letter] = max(size, sizes[letter])
    return tuple(sizes[letter] for letter in output) if all(letter in sizes for letter in output) else None


def einops(function: str, pattern: str, shape: tuple, axes: dict) -> tuple | None:
    """einops' `rearrange` or `repeat` of a tensor of `shape` by `pattern` ("b c (h ph) -> b h
    (c ph)"), with the sizes `axes` names (`ph=2`)."""
    if function not in ("rearrange", "repeat") or pattern.count("->") != 1:
        return None
    left, right = (_groups(side) for side in pattern.split("->"))
    if left is None or right is None:
        return None
    sizes = dict(axes)
    if _bind(left, shape, sizes) is None:
        return None
    result = []
    for group in right:
        if group == ["..."]:
            result.extend(sizes.get("...", ()))
            continue
        if any(axis not in sizes and not axis.isdigit() for axis in group):
            return None
        result.append(math.prod(int(axis) if axis.isdigit() else sizes[axis] for axis in group))
    return tuple(result)


def einops_strides(pattern: str, shape: tuple, axes: dict) -> tuple | str | None:
    """The strides of einops' result for a contiguous input of `shape`: "fresh" where it is a
    contiguous tensor (a reshape that copies, or a view laid out as a fresh one), the strides
    of a view otherwise (a transpose, a `repeat` broadcast with stride 0), None where not
    followed. Each elementary axis keeps its stride in the input (a new one of `repeat`: 0);
    a group of them is one dimension of a view where torch's reshape can merge them, else the
    reshape copies."""
    left, right = (_groups(side) for side in pattern.split("->", 1))
    sizes = dict(axes)
    if left is None or right is None or _bind(left, shape, sizes) is None:
        return None
    rest = tuple(("...", index) for index in range(len(sizes.get("...", ()))))
    elementary = [(name, size) for group in left for axis in group
                  for name, size in (zip(rest, sizes["..."]) if axis == "..." else [(axis, _size(axis, sizes))])]
    strides, running = {}, 1
    for name, size in reversed(elementary):
        strides[name] = running
        running *= size
    result = []
    for group in right:
        if "..." in group and group != ["..."]:
            return None
        for members in ([[name] for name in rest] if group == ["..."] else [group]):
            kept = [(_size(axis, sizes), 0 if axis not in strides else strides[axis]) for axis in members]
            kept = [(size, stride) for size, stride in kept if size != 1]
            if any(outer != inner * size for (_, outer), (size, inner) in zip(kept, kept[1:])):
                return "fresh"  # not a view: the reshape copies
            result.append(kept[-1][1] if kept else None)
    sizes_out = einops("repeat", pattern, shape, axes)
    fresh = [1]
    for size in reversed(sizes_out[1:]):
        fresh.insert(0, fresh[0] * size)
    laid_out = tuple(expected if stride is None or size == 1 else stride
                     for stride, expected, size in zip(result, fresh, sizes_out))
    return "fresh" if laid_out == tuple(fresh) else laid_out


def _size(axis, sizes: dict) -> int:
    """An elementary axis's size: a digit's own, one of the dimensions `...` took, a named one's."""
    if isinstance(axis, tuple):
        return sizes["..."][axis[1]]
    return int(axis) if axis.isdigit() else sizes[axis]


def _groups(side: str) -> list[list[str]] | None:
    """"b (h w) c" as [["b"], ["h", "w"], ["c"]]; None for a pattern not read."""
    groups: list[list[str]] = []
    current: list[str] | None = None
    for token in _AXIS.findall(side):
        if token == "(":
            if current is not None:
                return None
            current = []
        elif token == ")":
            if current is None:
                return None
            groups.append(current)
            current = None
        elif current is not None:
            current.append(token)
        else:
            groups.append([token])
    return groups if current is None else None


def _bind(groups: list[list[str]], shape: tuple, sizes: dict) -> dict | None:
    """The sizes of the left side's axes, from the input's shape (one unknown axis per group)."""
    rest = [index for index, group in enumerate(groups) if group == ["..."]]
    if len(rest) > 1 or not rest and len(groups) != len(shape):
        return None
    if rest:
        at, after = rest[0], len(groups) - rest[0] - 1
        sizes["..."] = shape[at:len(shape) - after]
        groups, shape = groups[:at] + groups[at + 1:], shape[:at] + shape[len(shape) - after:]
        if len(groups) != len(shape):
            return None
    for group, size in zip(groups, shape):
        unknown = [axis for axis in group if axis not in sizes and not axis.isdigit()]
        known = math.prod(int(axis) if axis.isdigit() else sizes[axis] for axis in group if axis not in unknown)
        if len(unknown) > 1 or known == 0 or size % known:
            return None
        if unknown:
            sizes[unknown[0]] = size // known
        elif known != size:
            return None
    return sizes


def plain(value):
    """A description's int or tuple of ints (shapes.py's Const, ListValue), None otherwise."""
    inner = getattr(value, "value", None)
    if type(inner) is int:
        return inner
    items = inner if isinstance(inner, tuple) else tuple(getattr(i, "value", None) for i in getattr(value, "items", ()))
    if (isinstance(inner, tuple) or hasattr(value, "items")) and all(type(i) is int for i in items):
        return tuple(items)
    return None
