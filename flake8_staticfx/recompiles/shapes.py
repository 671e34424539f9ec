"""The shapes of tensors made by torch functions, tensor methods and torch.nn layers, from the
descriptions of their arguments: what the driver replay and the forward reader (effects.py) need
to tell whether the next call's input has the shape of the last one. Only what follows from the
arguments: shape-preserving layers, `nn.Linear`, elementwise functions with broadcasting,
reductions over one dimension, transposes (`.t()` and `narrow` as views), matmul, concatenation,
factories of given sizes, `view`/`reshape`/`expand` to given sizes (one -1 inferred). Anything
else raises ShapeUnknown.
"""
from __future__ import annotations

import ast
import math
from dataclasses import dataclass

from .rearranging import einsum, pieces, plain, rearranged
from .values import UNKNOWN_SIZE, Const, Layer, ListValue, Number, TensorValue

SHAPE_LAYERS = frozenset({
    "GELU", "ReLU", "SiLU", "Tanh", "Sigmoid", "Identity", "LayerNorm", "RMSNorm", "GroupNorm", "Softmax",
    "LeakyReLU", "Mish", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "BatchNorm1d", "BatchNorm2d",
    "BatchNorm3d"})
PARAMETER_LAYERS = frozenset({
    "Linear", "LayerNorm", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "GroupNorm", "RMSNorm", "Embedding",
    "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"})
ELEMENTWISE = frozenset({
    "tanh", "relu", "sigmoid", "exp", "log", "abs", "neg", "sqrt", "rsqrt", "sin", "cos", "gelu", "silu",
    "softmax", "log_softmax", "where", "maximum", "minimum", "dropout", "layer_norm", "clamp", "leaky_relu",
    "mish", "square", "erf", "pow"})
SAME_SHAPE_METHODS = frozenset({
    "detach", "float", "half", "double", "bfloat16", "long", "int", "bool", "clone", "contiguous", "type_as", "to",
    "tanh", "relu", "sigmoid", "exp", "log", "abs", "neg", "sqrt", "rsqrt", "sin", "cos", "softmax", "clamp", "square", "cpu",
    "masked_fill"})
UNGRADED_METHODS = frozenset({"detach", "long", "int", "bool"})  # their result never requires grad
CONVOLUTIONS = {"Conv1d": 1, "Conv2d": 2, "Conv3d": 3, "ConvTranspose1d": 1, "ConvTranspose2d": 2,
                "ConvTranspose3d": 3}  # their spatial dimensions
REDUCTIONS = frozenset({"sum", "mean", "amax", "amin", "prod", "std", "var", "logsumexp"})
FACTORIES = frozenset({"zeros", "ones", "empty", "randn", "rand"})
LIKE_FACTORIES = frozenset({"zeros_like", "ones_like", "randn_like", "rand_like", "empty_like"})
NEW_FACTORIES = frozenset({"new_zeros", "new_ones", "new_empty", "new_full"})
REARRANGING_METHODS = frozenset({"permute", "flatten", "unsqueeze", "squeeze", "repeat"})


class ShapeUnknown(Exception):
    """A result whose shape does not follow from what is known of the arguments."""


@dataclass(frozen=True)
class Picked:
    """An index item that is a list of ints (`x[:, [-1], :]`): a copy with those entries."""

    entries: tuple[int, ...]


def torch_function(name: str, args: list, kwargs: dict, grad_enabled: bool) -> TensorValue:
    """`torch.<name>(...)` or `F.<name>(...)` (name without its module)."""
    tensors = [a for a in args if isinstance(a, TensorValue)]
    if name == "layer_norm" and tensors:  # its weight and bias, of the normalized shape, leave the input's
        return TensorValue(tensors[0].shape, grad_enabled and requires_grad(*tensors))
    if name in ELEMENTWISE and tensors:
        return TensorValue(broadcast(*tensors), grad_enabled and requires_grad(*tensors))
    if name in ("cat", "concat") and args and isinstance(args[0], ListValue):
        dim = kwargs.get("dim", args[1] if len(args) > 1 else Const(0))
        return TensorValue(concatenated(args[0].items, integer(dim)),
                           grad_enabled and requires_grad(*args[0].items))
    if name == "stack" and args and isinstance(args[0], ListValue):
        dim = kwargs.get("dim", args[1] if len(args) > 1 else Const(0))
        return TensorValue(stacked(args[0].items, integer(dim)), grad_enabled and requires_grad(*args[0].items))
    if name in FACTORIES:
        return TensorValue(sizes_of(args), grad_enabled and _flag(kwargs.get("requires_grad", Const(False))))
    if name == "full" and len(args) >= 2:
        return TensorValue(sizes_of(args[:1]))
    if name == "multinomial" and tensors and tensors[0].shape and "num_samples" in kwargs:
        return TensorValue((*tensors[0].shape[:-1], integer(kwargs["num_samples"])))
    if name in LIKE_FACTORIES and tensors:
        return TensorValue(tensors[0].shape)
    if name == "arange" and not args and "end" in kwargs:
        args = [kwargs.get("start", Const(0)), kwargs["end"]]  # `torch.arange(start=0, end=half)`
    if name == "arange" and len(args) in (1, 2) and all(isinstance(a, Const) for a in args):
        return TensorValue((len(range(*(integer(a) for a in args))),))
    if name == "scaled_dot_product_attention" and len(tensors) >= 3 and None not in (tensors[0].shape, tensors[2].shape):
        query, value = tensors[0].shape, tensors[2].shape
        return TensorValue((*query[:-1], value[-1]), grad_enabled and requires_grad(*tensors[:3]))
    if name == "gather" and len(tensors) >= 2:  # torch.gather(a, dim, index): the index's shape
        return TensorValue(tensors[1].shape, grad_enabled and tensors[0].requires_grad)
    if name == "einsum" and args and isinstance(args[0], Const) and isinstance(args[0].value, str) and all(
            isinstance(t.shape, tuple) and all(isinstance(size, int) for size in t.shape) for t in tensors):
        shape = einsum(args[0].value, [t.shape for t in tensors])
        if shape is None:
            raise ShapeUnknown("einsum")
        return TensorValue(shape, grad_enabled and requires_grad(*tensors), view=True)  # often a permuted view
    if name == "topk" and tensors and tensors[0].shape and len(args) + len(kwargs) >= 2:
        k = integer(kwargs.get("k", args[1] if len(args) > 1 else None))
        axis = integer(kwargs.get("dim", args[2] if len(args) > 2 else Const(-1))) % len(tensors[0].shape)
        shape = (*tensors[0].shape[:axis], k, *tensors[0].shape[axis + 1:])
        return ListValue([TensorValue(shape, grad_enabled and tensors[0].requires_grad), TensorValue(shape)])
    if name in ("interpolate", "upsample") and tensors and tensors[0].shape and len(tensors[0].shape) >= 3:
        return TensorValue(_resized(tensors[0].shape, kwargs.get("size", args[1] if len(args) > 1 else None), kwargs),
                           grad_enabled and tensors[0].requires_grad)
    if name == "linspace" and len(args) >= 3:
        return TensorValue((integer(args[2]),))
    if name == "randint" and len(args) >= 2 and isinstance(args[-1], Const) and isinstance(args[-1].value, tuple):
        bounds = [a.value if isinstance(a, Const) and type(a.value) is int else None for a in args[:-1]]
        below = bounds[-1] if None not in bounds and min(bounds) >= 0 else None
        return TensorValue(tuple(integer(Const(size)) for size in args[-1].value), below=below)
    raise ShapeUnknown(name)


def tensor_method(owner: TensorValue, name: str, args: list, kwargs: dict, grad_enabled: bool):
    """`tensor.<name>(...)`: a TensorValue, or a Const for `size(i)` and `dim()`."""
    shape = owner.shape
    grad = grad_enabled and owner.requires_grad
    if name in SAME_SHAPE_METHODS:
        return TensorValue(shape, False if name in UNGRADED_METHODS else grad)
    if name in NEW_FACTORIES and args:  # new_full(size, fill): the size alone; the others take `2, 3` too
        return TensorValue(sizes_of(args[:1] if name == "new_full" else args))
    if name == "gather" and len(args) == 2 and isinstance(args[1], TensorValue):
        return TensorValue(args[1].shape, grad)  # the index's shape, whatever the source's
    if shape is None:
        raise ShapeUnknown("shape")
    if name == "size" and len(args) == 1 and isinstance(shape[integer(args[0])], int):
        return Const(shape[integer(args[0])])
    if name == "size" and not args and all(isinstance(size, int) for size in shape):
        return Const(tuple(shape))
    if name == "size":
        raise ShapeUnknown("a size not known")
    if name == "dim" and not args:
        return Const(len(shape))
    if name == "split" and len(args) == 1 and isinstance(args[0], Const) and shape:
        size, axis = integer(args[0]), integer(kwargs.get("dim", Const(0))) % len(shape)
        if not isinstance(shape[axis], int) or size <= 0:
            raise ShapeUnknown("split")
        return ListValue([TensorValue((*shape[:axis], min(size, shape[axis] - start), *shape[axis + 1:]), grad)
                          for start in range(0, shape[axis], size)])
    if name in ("transpose", "swapaxes") and len(args) == 2:
        dims = list(shape)
        first, second = integer(args[0]), integer(args[1])
        dims[first], dims[second] = dims[second], dims[first]
        return TensorValue(tuple(dims), grad)
    if name in REDUCTIONS:
        dim = kwargs.get("dim", args[0] if args else None)
        keep = kwargs.get("keepdim", args[1] if len(args) > 1 else Const(False))
        if dim is None or not isinstance(keep, Const):
            raise ShapeUnknown("reduction")
        axis = integer(dim) % len(shape)
        kept = tuple(1 if i == axis else s for i, s in enumerate(shape))
        return TensorValue(kept if keep.value else shape[:axis] + shape[axis + 1:], grad)
    if name == "t" and not args and len(shape) == 2:
        return TensorValue(shape[::-1], grad, view=True)  # the base's strides swapped: a view
    if name == "narrow" and len(args) == 3 and all(isinstance(a, Const) for a in args):
        axis = integer(args[0]) % len(shape)
        return TensorValue((*shape[:axis], integer(args[2]), *shape[axis + 1:]), grad, view=True)
    numbers, options = [plain(a) for a in args], {key: plain(value) for key, value in kwargs.items()}
    if name in (*REARRANGING_METHODS, "chunk", "split") and not all(isinstance(size, int) for size in shape):
        raise ShapeUnknown("sizes")
    if name in REARRANGING_METHODS:
        result = rearranged(shape, name, numbers, options)
        if result is None:
            raise ShapeUnknown(name)
        return TensorValue(result, grad, view=name == "permute")  # a permuted tensor keeps its base's strides
    if name in ("chunk", "split"):
        found = pieces(shape, name, numbers, options)
        if found is None:
            raise ShapeUnknown(name)
        return ListValue([TensorValue(piece, grad) for piece in found])
    if name == "reshape" and not args and "shape" in kwargs:
        args = [kwargs["shape"]]  # `x.reshape(shape=(...))`
    if name in ("view", "reshape", "expand"):
        sizes = sizes_of(args)
        if name != "expand" and list(sizes).count(-1) == 1:
            sizes = _inferred(sizes, shape)
        if name == "expand":
            padded = (None,) * (len(sizes) - len(shape)) + shape
            sizes = tuple(old if new == -1 else new for new, old in zip(sizes, padded))
        if -1 in sizes or None in sizes:
            raise ShapeUnknown("sizes")
        return TensorValue(sizes, grad)
    raise ShapeUnknown(name)


def _resized(shape: tuple, size, options: dict) -> tuple:
    """F.interpolate's result: the batch and channels kept, the spatial sizes `size=` gives, or,
    in "area" mode (or with recompute_scale_factor=True) by a number `scale_factor=`,
    `int(size * scale_factor)` as torch's Python code computes them; otherwise not known (the
    C++ kernels round the products)."""
    spatial = len(shape) - 2
    if isinstance(size, Const) and type(size.value) is int:
        return (*shape[:2], *(size.value,) * spatial)
    if isinstance(size, Const) and isinstance(size.value, tuple) and len(size.value) == spatial and all(
            type(s) is int for s in size.value):
        return (*shape[:2], *size.value)
    scale, mode, recompute = (options[key].value if isinstance(options.get(key), Const) else None
                              for key in ("scale_factor", "mode", "recompute_scale_factor"))
    if size is None and type(scale) in (int, float) and (mode == "area" or recompute is True) and all(
            isinstance(s, int) for s in shape[2:]):
        return (*shape[:2], *(int(s * scale) for s in shape[2:]))
    return (*shape[:2], *(UNKNOWN_SIZE,) * spatial)


def _inferred(sizes: tuple, shape: tuple) -> tuple:
    """`view(bsz, -1)`: the one size left to infer, from the element count."""
    known = [size for size in sizes if size != -1]
    if None in known or not all(isinstance(size, int) for size in shape) or 0 in known:
        raise ShapeUnknown("sizes")
    total = math.prod(shape)
    if total % math.prod(known):
        raise ShapeUnknown("sizes")
    return tuple(total // math.prod(known) if size == -1 else size for size in sizes)


def layer_output(layer: Layer, args: list, grad_enabled: bool) -> TensorValue:
    """A torch.nn layer called on a tensor of known shape."""
    x = args[0] if args and isinstance(args[0], TensorValue) else None
    if x is None or x.shape is None:
        raise ShapeUnknown("layer input")
    grad = grad_enabled and (layer.name in PARAMETER_LAYERS or x.requires_grad)
    if layer.name in SHAPE_LAYERS:
        return TensorValue(x.shape, grad)
    if layer.name == "Linear" and len(layer.sizes) >= 2 and isinstance(layer.sizes[1], int) and x.shape:
        return TensorValue((*x.shape[:-1], layer.sizes[1]), grad)
    if layer.name == "Embedding" and len(layer.sizes) >= 2 and isinstance(layer.sizes[1], int):
        return TensorValue((*x.shape, layer.sizes[1]), grad)
    spatial = CONVOLUTIONS.get(layer.name, 0)
    if spatial and len(x.shape) == spatial + 2 and all(isinstance(size, int) for size in x.shape[2:]):
        sizes = [_convolved(layer, size) for size in x.shape[2:]]
        if None not in sizes and len(layer.sizes) > 1 and isinstance(layer.sizes[1], int):
            return TensorValue((x.shape[0], layer.sizes[1], *sizes), grad)
    raise ShapeUnknown(layer.name)


def _convolved(layer: Layer, size: int) -> int | None:
    """A spatial size through nn.ConvNd or nn.ConvTransposeNd(in, out, kernel, stride, padding)
    of int settings (torch.nn's formulas); None for any other setting (a tuple, "same")."""
    names = ("kernel_size", "stride", "padding")
    settings = dict(zip(names, layer.sizes[2:5]), **{k: v for k, v in layer.options.items() if k in names})
    kernel, stride, padding = (settings.get(name, default) for name, default in zip(names, (None, 1, 0)))
    dilation, extra = layer.options.get("dilation", 1), layer.options.get("output_padding", 0)
    if len(layer.sizes) > 5 or not all(type(v) is int for v in (kernel, stride, padding, dilation, extra)):
        return None
    if layer.name.startswith("ConvTranspose"):
        return (size - 1) * stride - 2 * padding + dilation * (kernel - 1) + extra + 1
    out = (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1
    return out if out > 0 and extra == 0 else None


def indexed(shape: tuple | None, items: list, views: bool = False) -> tuple | None:
    """`x[:, None]`, `x[0]`, `x[a:b]`: each item is "all" (a full slice), None (a new
    dimension), an int (the dimension goes) or a (start, stop) pair of ints or None; the
    shape of the result, None where not followed (measured: a crop `idx[:, -n:]` of a growing
    tensor recompiles on its stride, realcode/nanogpt_generate.py) unless `views`: the caller
    then knows the result for a view's shape, its strides not followed."""
    if shape is None:
        return None
    if items.count("rest") > 1 or any(isinstance(item, Picked) for item in items) and (
            sum(isinstance(item, (Picked, int)) for item in items) > 1):
        return None  # more than one advanced index: where their dimensions go is not followed
    if "rest" in items:  # `...`: the dimensions the other items do not take
        at = items.index("rest")
        taken = sum(1 for item in items if item is not None and item != "rest")
        items = [*items[:at], *["all"] * (len(shape) - taken), *items[at + 1:]]
    result, position = [], 0
    for item in items:
        if item is None:
            result.append(1)
            continue
        if position >= len(shape) or not isinstance(shape[position], int):
            return None
        if item == "all":
            result.append(shape[position])
        elif isinstance(item, Picked):
            if not all(-shape[position] <= entry < shape[position] for entry in item.entries):
                return None
            result.append(len(item.entries))
        elif isinstance(item, tuple):
            result.append(len(range(shape[position])[slice(*item)]))
            if position and result[-1] != shape[position] and not views:
                return None  # a view with its base's strides (x[:, -n:]): guarded on them, not followed
        elif not isinstance(item, int) or not -shape[position] <= item < shape[position] or position and not views:
            return None
        position += 1
    return (*result, *shape[position:])


def view_strides(shape: tuple | None, items: list) -> tuple | None:
    """The strides of `x[...]` for a fresh (contiguous) x of `shape`, its items full slices,
    (start, stop) slices and ints; None for anything else."""
    if shape is None or len(items) > len(shape) or not all(isinstance(size, int) for size in shape) or any(
            not (item == "all" or isinstance(item, tuple) or type(item) is int) for item in items):
        return None
    strides = [1]
    for size in reversed(shape[1:]):
        strides.insert(0, strides[0] * size)
    return tuple(stride for stride, item in zip(strides, [*items, *["all"] * (len(shape) - len(items))])
                 if type(item) is not int)


def row_window(owner: TensorValue, index: ast.expr, evaluate) -> TensorValue | None:
    """`data[i:i + k]` with `i` a tensor of values in [0, b) (nanoGPT's get_batch: rows cut at
    random starts): k rows wherever it starts, when the last start leaves room for them. The
    first dimension only: the rows of a contiguous tensor, contiguous themselves. `evaluate`
    gives an ast node's value description; None where the slice is not such a window."""
    if not (isinstance(index, ast.Slice) and index.lower is not None and index.upper is not None
            and index.step is None and owner.shape and isinstance(owner.shape[0], int)):
        return None
    (base, start), (upper_base, stop) = _offset(index.lower), _offset(index.upper)
    if ast.dump(base) != ast.dump(upper_base):
        return None
    first, start, stop = evaluate(base), evaluate(start), evaluate(stop)
    if not (isinstance(first, TensorValue) and first.shape == () and first.below is not None
            and all(isinstance(c, Const) and type(c.value) is int for c in (start, stop))):
        return None
    length = stop.value - start.value
    if length < 0 or start.value < 0 or first.below - 1 + stop.value > owner.shape[0]:
        return None
    return TensorValue((length, *owner.shape[1:]), owner.requires_grad)


def _offset(node: ast.expr) -> tuple[ast.expr, ast.expr]:
    """`i + 1 + k` as (`i`, `1 + k`): the leftmost operand of a sum, and the rest added to it."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        base, added = _offset(node.left)
        return base, ast.BinOp(added, ast.Add(), node.right)
    return node, ast.Constant(0)


def index_items(index: ast.expr, evaluate) -> list:
    """The items of a subscript as `indexed` takes them, each bound evaluated by `evaluate`
    (an ast node -> a value description); "unknown" for an item not followed."""
    if not isinstance(index, (ast.Tuple, ast.Slice, ast.Constant)):
        value = evaluate(index)  # x[(...,) + (None,) * n]: a tuple computed
        if isinstance(value, Const) and isinstance(value.value, tuple):
            return ["rest" if item is Ellipsis else None if item is None else item if isinstance(item, int)
                    and not isinstance(item, bool) else "unknown" for item in value.value]
    items = index.elts if isinstance(index, ast.Tuple) else [index]
    found = []
    for item in items:
        if isinstance(item, ast.Slice) and item.step is None:
            bounds = [None if b is None else evaluate(b) for b in (item.lower, item.upper)]
            if all(b is None for b in bounds):
                found.append("all")
            elif all(b is None or isinstance(b, Const) and isinstance(b.value, int) for b in bounds):
                found.append(tuple(None if b is None else b.value for b in bounds))
            else:
                found.append("unknown")
        elif isinstance(item, ast.Constant) and item.value is None:
            found.append(None)
        elif isinstance(item, ast.Constant) and item.value is Ellipsis:
            found.append("rest")
        else:
            value = evaluate(item)
            if isinstance(value, ListValue) and value.items and all(
                    isinstance(entry, Const) and type(entry.value) is int for entry in value.items):
                found.append(Picked(tuple(entry.value for entry in value.items)))
                continue
            found.append(value.value if isinstance(value, Const) and isinstance(value.value, int)
                         and not isinstance(value.value, bool) else "unknown")
    return found


def broadcast(*operands) -> tuple | None:
    """The shape of an elementwise result: numbers broadcast, tensors align from the right."""
    shapes = [o.shape for o in operands if isinstance(o, TensorValue)]
    if not shapes:
        raise ShapeUnknown("no tensor")
    if any(s is None for s in shapes) or not all(isinstance(o, (TensorValue, Const)) for o in operands):
        return None
    rank = max(len(s) for s in shapes)
    result = []
    for position in range(rank):
        sizes = {s[len(s) - rank + position] for s in shapes if len(s) - rank + position >= 0} - {1}
        if len(sizes) > 1 or not all(isinstance(size, int) for size in sizes):
            return None
        result.append(sizes.pop() if sizes else 1)
    return tuple(result)


def matmul(left, right) -> tuple | None:
    if not (isinstance(left, TensorValue) and isinstance(right, TensorValue)):
        return None
    a, b = left.shape, right.shape
    if a is None or b is None or len(a) < 2 or len(b) < 2 or a[-1] != b[-2] or a[:-2] != b[:-2]:
        return None
    return (*a[:-1], b[-1])


def concatenated(items: list, dim: int) -> tuple | None:
    shapes = [i.shape if isinstance(i, TensorValue) else None for i in items]
    if not shapes or None in shapes or len({len(s) for s in shapes}) != 1:
        return None
    axis = dim % len(shapes[0])
    if len({s[:axis] + s[axis + 1:] for s in shapes}) != 1:
        return None
    return (*shapes[0][:axis], sum(s[axis] for s in shapes), *shapes[0][axis + 1:])


def stacked(items: list, dim: int) -> tuple | None:
    """torch.stack: tensors of one shape, a new dimension of their count at `dim`."""
    shapes = {i.shape if isinstance(i, TensorValue) else None for i in items}
    if len(shapes) != 1 or None in shapes:
        return None
    shape = next(iter(shapes))
    axis = dim % (len(shape) + 1)
    return (*shape[:axis], len(items), *shape[axis:])


def tensor_of(data) -> TensorValue:
    """torch.tensor(data): a 0-d tensor of a number (its value kept), an n-d one of nested lists
    of numbers (`[[4, 5, 6]]`: (1, 3))."""
    if isinstance(data, Const) and isinstance(data.value, (int, float, bool)):
        return TensorValue((), value=data.value)
    return TensorValue(_nested_shape(data))


def _nested_shape(data) -> tuple | None:
    """The shape of a (nested) list or tuple of numbers, None where its rows differ or an item
    is not a known number."""
    if isinstance(data, Const) and isinstance(data.value, (int, float)) and not isinstance(data.value, bool):
        return ()
    items = data.items if isinstance(data, ListValue) else [Const(i) for i in data.value] if isinstance(
        data, Const) and isinstance(data.value, tuple) else None
    if not items:
        return None
    shapes = {_nested_shape(item) for item in items}
    return (len(items), *shapes.pop()) if len(shapes) == 1 and None not in shapes else None


def sizes_of(args: list) -> tuple:
    """The sizes given as `f(2, 3)`, `f((2, 3))` or `f([2, 3])`."""
    if len(args) == 1 and isinstance(args[0], Const) and isinstance(args[0].value, tuple):
        return tuple(integer(Const(size)) for size in args[0].value)
    if len(args) == 1 and isinstance(args[0], ListValue):
        return tuple(integer(item) for item in args[0].items)
    return tuple(integer(a) for a in args)


def requires_grad(*values) -> bool | None:
    """Whether a result computed from `values` (a list's items counted) requires grad: True when
    one of them does, None (not known) when one of them may (a tensor not followed, a value not
    followed that may be one), else False (numbers, tensors that do not)."""
    flags = [item.requires_grad if isinstance(item, TensorValue) else False if isinstance(item, (Const, Number))
             else None for value in values for item in (value.items if isinstance(value, ListValue) else [value])]
    return True if True in flags else None if None in flags else False


def integer(value) -> int:
    if isinstance(value, Const) and isinstance(value.value, int) and not isinstance(value.value, bool):
        return value.value
    raise ShapeUnknown("not an int")


def _flag(value) -> bool | None:
    """A `requires_grad=` argument: None where its value is not known."""
    return bool(value.value) if isinstance(value, Const) else None
