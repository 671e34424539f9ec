"""Tensors and numpy arrays: what dynamo traces into the graph, and where it needs their data."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from astroid import nodes

from .. import rules, tables
from ..fx_names import TENSOR_MEMBERS
from ..interpret.resume import RestEagerly, WhollyEagerly
from ..ir import DEVICE, Condition
from ..segments import is_metadata
from .base import UNKNOWN, Value, as_args, as_kwargs
from .containers import Seq
from .functions import BoundMethod
from .static import Static, TensorDevice, TensorDtype, element_count

if TYPE_CHECKING:
    from ..interpret.frame import Frame
    from ..interpret.interpreter import Interpreter
    from ..ir import Node


@dataclass(eq=False)
class Tensor(Value):
    """A tensor traced into the graph.

    `weak` marks values only assumed to be tensors (unannotated forward inputs, optional
    arguments): dynamo's verdict on `if weak:` depends on what the caller passes, so rules
    that only need "is a tensor" stay quiet for them. Any operation on a weak tensor gives
    a definite tensor, since it would fail on anything else.
    """

    node: Node | None
    weak: bool = False
    is_bool: bool = False  # a mask: comparisons, logical ops, .bool()
    scalar: bool = False  # a captured Python scalar from .item() (capture_scalar_outputs)
    # A number from random.randint/uniform: dynamo makes it a graph input, so it mixes with
    # tensors but Python arithmetic on it breaks (GB0213).
    python_random: bool = False
    # Computed from parameters, so autograd already tracks it (requires_grad_ is a no-op).
    needs_grad: bool = False
    # Registered with register_buffer: a module tensor autograd does not track, so
    # `self.zero.requires_grad_()` breaks (GB0125, vector-quantize-pytorch in the package oracle).
    buffer: bool = False
    # A sparse layout (torch.sparse_coo_tensor, Tensor.to_sparse()): dynamo cannot wrap it as a
    # graph value, so the first operation on it gives up on the rest of the function (GB0015).
    sparse: bool = False

    def is_none(self) -> bool | None:
        return False if is_definite_tensor(self) else None

    def joined(self, other: Value) -> Value | None:
        if isinstance(other, Tensor):
            return Tensor(other.node, weak=self.weak or other.weak, is_bool=self.is_bool and other.is_bool,
                          scalar=self.scalar and other.scalar)
        return None

    def describe(self) -> str:
        return "tensor"

    @property
    def definite(self) -> bool:
        return not self.weak

    def optional_input(self) -> str:
        """The name of the root's parameter defaulting to None this tensor is, if it is one."""
        return self.node.target if self.node is not None and self.node.meta.get("optional") else ""

    def var_getattr(self, tx: Interpreter, name: str, expr: nodes.NodeNG, frame: Frame) -> Value:
        if self.weak and name not in TENSOR_MEMBERS:
            return UNKNOWN  # `cache.get_seq_length()`: the input assumed a tensor is something else
        if self.sparse and name in tables.TENSOR_STATIC_ATTRIBUTES:
            node = tx.graph.call_function("getattr", (self.as_arg(), name), meta=tx.meta(expr, frame))
            sparse_operand(tx, node, expr, frame)  # `kernel.shape` wraps the tensor too
            return Static(node=node)
        if name in tables.TENSOR_STATIC_ATTRIBUTES or name in tables.TENSOR_TENSOR_ATTRIBUTES:
            node = tx.graph.call_function("getattr", (self.as_arg(), name), meta=tx.meta(expr, frame))
            if name == "dtype" and not self.is_bool:
                return TensorDtype(node=node)
            if name == "device":
                return TensorDevice(node=node)
            if name in tables.TENSOR_DEVICE_FLAGS:
                return Static.testing(Condition(DEVICE, tables.TENSOR_DEVICE_FLAGS[name]), tx.options)
            return Tensor(node) if name in tables.TENSOR_TENSOR_ATTRIBUTES else Static(node=node)
        return BoundMethod(self, name)

    def call_method(self, tx: Interpreter, name: str, args: list[Value], kwargs: dict[str, Value],
                    expr: nodes.NodeNG, frame: Frame) -> Value:
        meta = tx.meta(expr, frame)
        if self.sparse:
            node = tx.graph.call_method(name, (self.as_arg(), *as_args(args)), as_kwargs(kwargs), meta=meta)
            result = sparse_operand(tx, node, expr, frame)
            return replace(result, sparse=True) if name in tables.TENSOR_SPARSE_LAYOUT_METHODS else result
        if name in tables.TENSOR_STATIC_METHODS:
            node = tx.graph.call_method(name, (self.as_arg(), *as_args(args)), as_kwargs(kwargs), meta=meta)
            # `t.numel()`, `t.size(0)`: only a tensor has them (a weak one too)
            counts = not args if name in tables.TENSOR_ELEMENT_COUNTS else name == "size" and _first_dimension(args)
            if counts and isinstance(expr, nodes.Call) and isinstance(expr.func, nodes.Attribute):
                return element_count(expr.func.expr.as_string(), node)
            return Static(node=node)
        node = tx.graph.call_method(name, (self.as_arg(), *as_args(args)), as_kwargs(kwargs), meta=meta)
        special = getattr(self, f"method_{name}", None)
        if special is not None:
            result = special(tx, node, args, expr, frame)
            if result is not None:
                return result
        elif name in tables.SIZE_METHODS:
            if reduced_in_graph(tx, args[:1] if name == "new_full" else args):
                tx.graph_break(rules.TENSOR_TO_PYTHON_SCALAR, node, expr, frame, gb_ids=("GB0033",))
        elif name in tables.TENSOR_DYNAMIC_SHAPE_METHODS:
            tx.graph_break(rules.DYNAMIC_OUTPUT_SHAPE, node, expr, frame)
        elif name in tables.TENSOR_NON_TENSOR_METHODS:
            return UNKNOWN
        if name in tables.TENSOR_NAMED_TUPLES:
            return named_tensors(tx, node, tables.TENSOR_NAMED_TUPLES[name], expr, frame)
        is_bool = name in tables.TENSOR_BOOL_METHODS or (name in tables.TENSOR_SAME_DTYPE_METHODS and self.is_bool)
        needs_grad = name not in ("detach", "detach_") and not is_bool and needs_grad_from(self, *args)
        return Tensor(node, is_bool=is_bool, needs_grad=needs_grad)

    def method_item(self, tx: Interpreter, node: Node, args: list[Value], expr: nodes.NodeNG,
                    frame: Frame) -> Value:
        tx.graph_break(rules.TENSOR_TO_PYTHON_SCALAR, node, expr, frame)
        return python_scalar(tx, node)

    def method_to_sparse(self, tx: Interpreter, node: Node, args: list[Value], expr: nodes.NodeNG,
                         frame: Frame) -> Value:
        """Dynamo cannot put the sparse result in the graph (GB0277, measured)."""
        tx.graph_break(rules.SPARSE_TENSOR, node, expr, frame, gb_ids=("GB0277",))
        return Tensor(node, sparse=True)

    def method_tolist(self, tx: Interpreter, node: Node, args: list[Value], expr: nodes.NodeNG,
                      frame: Frame) -> Value:
        tx.graph_break(rules.TENSOR_TOLIST, node, expr, frame)
        return Seq(None, elem=Static(), is_list=True)

    def method_repeat_interleave(self, tx: Interpreter, node: Node, args: list[Value], expr: nodes.NodeNG,
                                 frame: Frame) -> None:
        """Tensor repeats give a data-dependent output size (GB0036); int repeats, or a given
        `output_size`, do not (as for torch.repeat_interleave)."""
        if tensor_repeats([self, *args], node.kwargs):
            tx.graph_break(rules.DYNAMIC_OUTPUT_SHAPE, node, expr, frame)

    def method_numpy(self, tx: Interpreter, node: Node, args: list[Value], expr: nodes.NodeNG,
                     frame: Frame) -> Value:
        """Dynamo traces the array as the tensor it is: its values are data (measured)."""
        return NdArray(holds_data=True)

    def method_backward(self, tx: Interpreter, node: Node, args: list[Value], expr: nodes.NodeNG,
                        frame: Frame) -> Value:
        tx.graph_break(rules.AUTOGRAD_IN_FORWARD, node, expr, frame)
        return Static(None)

    def method_requires_grad_(self, tx: Interpreter, node: Node, args: list[Value], expr: nodes.NodeNG,
                              frame: Frame) -> None:
        """On a tensor computed from parameters it changes nothing; dynamo breaks where it makes
        a tensor require grad (GB0125, GB8985)."""
        if not self.needs_grad:
            tx.graph_break(rules.REQUIRES_GRAD_MUTATION, node, expr, frame)

    def subscript(self, tx: Interpreter, key: Value, expr: nodes.NodeNG, frame: Frame) -> Value:
        node = tx.graph.call_function("operator.getitem", (self.as_arg(), key.as_arg()), meta=tx.meta(expr, frame))
        if has_bool_mask(key):
            tx.graph_break(rules.DYNAMIC_OUTPUT_SHAPE, node, expr, frame)
        elif any(part.needs_tensor_value() for part in slices_of(key)) and not tx.breaks.stop_tracing(
                rules.TENSOR_TO_PYTHON_SCALAR, node, expr, frame, "a tensor slice bound"):
            tx.graph_break(rules.TENSOR_TO_PYTHON_SCALAR, node, expr, frame,
                           eagerly=WhollyEagerly(frame.name, "a tensor slice bound"))
        # `dims[0]`, `dims[1:]` are as valid on a tuple: an assumed input stays assumed.
        weak = self.weak and isinstance(key, Static) and (not key.known or type(key.value) in (int, slice))
        return Tensor(node, weak=weak, is_bool=self.is_bool, needs_grad=self.needs_grad)

    def truth(self, tx: Interpreter, expr: nodes.NodeNG, frame: Frame) -> tuple[bool | None, Node | None]:
        if self.definite:
            return None, tx.branch(self, expr, frame)
        return None, None

    def element(self, tx: Interpreter, expr: nodes.NodeNG | None, frame: Frame | None) -> Value:
        node = tx.graph.call_function("operator.getitem", (self.as_arg(), 0),
                                      meta=tx.meta(expr, frame) if expr is not None else {})
        return Tensor(node, weak=self.weak, is_bool=self.is_bool)  # a tuple unpacks too

    def store_attribute(self, tx: Interpreter, name: str, value: Value, target: nodes.NodeNG,
                        frame: Frame) -> None:
        if self.definite and name == "requires_grad":
            node = tx.graph.python_call("setattr", (self.as_arg(), "requires_grad"), meta=tx.meta(target, frame))
            tx.graph_break(rules.REQUIRES_GRAD_MUTATION, node, target, frame)

    def store_item(self, tx: Interpreter, key: Value, value: Value, target: nodes.NodeNG,
                   frame: Frame) -> None:
        tx.graph.call_function("operator.setitem", (self.as_arg(), key.as_arg(), value.as_arg()),
                               meta=tx.meta(target, frame))

    def as_arg(self) -> Any:
        return self.node if self.node is not None else "<tensor>"

    def signature(self, depth: int) -> Any:
        return ("T", self.weak, self.is_bool, self.scalar, self.sparse)

    def rebind(self, node: Node) -> Value:
        return Tensor(node, weak=self.weak, is_bool=self.is_bool, scalar=self.scalar, sparse=self.sparse)

    def in_graph(self, tx: Interpreter) -> Value:
        """An `__init__` tensor read in forward is a constant of this graph (fx's `_tensor_constantN`)."""
        if self.node is not None and not tx.graph.owns(self.node):
            return replace(self, node=tx.tensor_constant(self.node))
        return self


@dataclass(eq=False)
class NdArray(Value):
    """A numpy array made in the compiled code: dynamo traces numpy as tensor operations, so
    converting the array to Python objects (`.tolist()`) needs its data, as for a tensor.

    `holds_data`: its values are data in the graph, so testing it (`if x.numpy().sum() > 0:`,
    GB0170) or int() of it (GB0033) breaks: an array made from a tensor, or by numpy from a
    Python sequence (`np.prod(x.shape[1:])`; measured: numpy on a static shape is not folded).
    numpy's elementwise functions on Python numbers (`np.ceil(np.log2(n))`) trace (measured)."""

    holds_data: bool = False

    def joined(self, other: Value) -> Value | None:
        return NdArray(holds_data=self.holds_data or other.holds_data) if isinstance(other, NdArray) else None

    def var_getattr(self, tx: Interpreter, name: str, expr: nodes.NodeNG, frame: Frame) -> Value:
        if name in tables.NDARRAY_METHODS or name in ("tolist", "item"):
            return BoundMethod(self, name)
        return Static() if name in ("shape", "ndim", "size", "dtype") else UNKNOWN

    def call_method(self, tx: Interpreter, name: str, args: list[Value], kwargs: dict[str, Value],
                    expr: nodes.NodeNG, frame: Frame) -> Value:
        if name == "tolist":
            node = tx.graph.python_call("numpy.ndarray.tolist", meta=tx.meta(expr, frame))
            tx.graph_break(rules.TENSOR_TOLIST, node, expr, frame)
            return Seq(None, elem=Static(), is_list=True)
        if name == "item":
            return self.python_number(tx, expr, frame)
        return NdArray(self.holds_data)

    def python_number(self, tx: Interpreter, expr: nodes.NodeNG, frame: Frame) -> Value:
        """`a.item()`: an array holding data is a traced tensor, its value needed in Python (GB0033,
        measured: `np.random.rand(1).item()`); one made from static values is a number."""
        if not self.holds_data:
            return Static()
        node = tx.graph.call_function("numpy.ndarray.item", meta=tx.meta(expr, frame))
        tx.graph_break(rules.TENSOR_TO_PYTHON_SCALAR, node, expr, frame, gb_ids=("GB0033",))
        return Static(node=node)

    def subscript(self, tx: Interpreter, key: Value, expr: nodes.NodeNG, frame: Frame) -> Value:
        return NdArray(self.holds_data)

    def truth(self, tx: Interpreter, expr: nodes.NodeNG, frame: Frame) -> tuple[bool | None, Node | None]:
        if self.holds_data:
            return None, tx.branch(self, expr, frame)
        return None, None


@dataclass(eq=False)
class PathTensor(Value):
    """A variable that is a tensor after one path of an `if` and a Python constant after the
    other: `skip = False`, then `if self.training and p > 0: skip = torch.rand([]) < p`.
    Testing its truth breaks (GB0170) as testing the tensor would on that path: with the
    conditions the path needs (`when training`), and held back, as code under the `if` is,
    when the path runs only on some calls (transformers' layerdrop loops, measured:
    cond_path_tensor.py). Anything else it does is unknown."""

    tensor: Tensor
    needs: tuple[Condition, ...]
    every_call: bool  # the path is every call's (in its mode, or on the default call)

    def truth(self, tx: Interpreter, expr: nodes.NodeNG, frame: Frame) -> tuple[bool | None, Node | None]:
        step = 0 if self.every_call else 1
        frame.resume.conditional += step
        try:
            with tx.breaks.taking(self.needs):
                return None, tx.branch(self.tensor, expr, frame)
        finally:
            frame.resume.conditional -= step


# A path of an `if`: what it needs of how the model is run, and whether it is every call's.
IfPath = tuple[tuple[Condition, ...], bool]


def joined_on_paths(a: Value, b: Value, a_path: IfPath, b_path: IfPath) -> Value | None:
    """A variable after the two paths of an `if` meet (each path: what it needs, whether it is
    every call's): a tensor on one and a Python constant on the other is a PathTensor."""
    for tensor, constant, (needs, every_call) in ((a, b, a_path), (b, a, b_path)):
        if is_definite_tensor(tensor) and isinstance(constant, Static) and constant.known \
                and constant.node is None and isinstance(constant.value, (bool, type(None))):
            return PathTensor(tensor, needs, every_call)
    return None


@dataclass(eq=False)
class TensorSlice(Value):
    """A slice with a tensor among its bounds (`x[:, :lengths.max()]`, `x[:, :budget]`).

    Indexing a tensor with it needs the bound as a Python int: measured with 2.13, dynamo
    calls the bound's `.item()` (GB0124) and gives up on the frame the slice is in (forward,
    or the helper forward calls), whether the bound was computed in the graph or is a 0-d input."""

    bounds: list[Value]

    def needs_tensor_value(self) -> bool:
        return any(is_definite_tensor(bound) and not bound.scalar for bound in self.bounds)

    def as_arg(self) -> Any:
        return tuple(bound.as_arg() for bound in self.bounds)


def slices_of(key: Value) -> list[TensorSlice]:
    """The slices with a tensor bound in an index (`x[:n]`, `x[:, :n]`)."""
    parts = key.items if isinstance(key, Seq) and key.items is not None else [key]
    return [part for part in parts if isinstance(part, TensorSlice)]


def named_tensors(tx: Interpreter, node: Node, fields: tuple[str, ...], expr: nodes.NodeNG, frame: Frame) -> Value:
    """The named tuple of tensors an op returns (`lo, hi = torch.aminmax(x)`, `.max`)."""
    items = [Tensor(tx.graph.call_function("operator.getitem", (node, index), meta=tx.meta(expr, frame)))
             for index in range(len(fields))]
    return Seq(items, fields=fields)


def tensor_repeats(args: list[Value], kwargs: dict[str, Value]) -> bool:
    """`torch.repeat_interleave(repeats)` and `(x, repeats_tensor)` have a data-dependent
    output size (GB0036); an int `repeats` does not, nor does a given `output_size` (traces,
    measured: val_repeat_interleave_forms.py). The predicate of torch.repeat_interleave's entry
    of breaks.BREAKING_CALLS, and of the tensor method."""
    if "output_size" in kwargs or len(args) > 3:
        return False
    return (len(args) == 1 and "repeats" not in kwargs) or (len(args) > 1 and is_definite_tensor(args[1])) \
        or is_definite_tensor(kwargs.get("repeats", UNKNOWN))


def _first_dimension(args: list[Value]) -> bool:
    """`t.size(0)`: 0 exactly when a run's batch of `t` is empty."""
    return len(args) == 1 and isinstance(args[0], Static) and type(args[0].value) is int and args[0].value == 0


def is_definite_tensor(value: Value) -> bool:
    return isinstance(value, Tensor) and not value.weak


def python_scalar(tx: Interpreter, node: Node) -> Value:
    """`.item()`: a Python number after the break, a data-dependent scalar when captured.

    The number keeps its node, as fx proxies it: arithmetic on it is drawn (`peak + 1e-6`), and
    dynamo 2.13, which does not specialise floats, traces that arithmetic in the resumed graph."""
    if tx.options.capture_scalar_outputs or tx.options.fullgraph:
        return Tensor(node, scalar=True)
    return Static(node=node)


def reduced_in_graph(tx: Interpreter, values: list[Value]) -> bool:
    """Is a size argument (or an item of a size tuple) a reduction of tensor data made in
    the current graph (`lengths.max()`, `n.sum() + 1`)? Dynamo then needs its value in
    Python (GB0033). Measured with 2.13, it does not break when the size is a forward
    input or was computed before an earlier graph break (it is an input of the resumed
    graph then), nor when it is a torch op on Python ints (`torch.div(size, 2)`)."""
    for value in values:
        if isinstance(value, Seq) and value.items is not None and reduced_in_graph(tx, value.items):
            return True
        if is_definite_tensor(value) and not value.scalar and value.node is not None \
                and tx.graph.position(value.node) >= tx.breaks.segment_start and not made_from_python_numbers(value.node):
            made = [value.node, *(n for n in value.node.inputs() if n.op != "get_attr")]
            if any(n.target.rsplit(".", 1)[-1] in tables.REDUCTIONS for n in made if n.op != "placeholder"):
                return True
    return False


PYTHON_NUMBER_FACTORIES = frozenset({"torch.tensor", "torch.as_tensor", "torch.scalar_tensor"})


def made_from_python_numbers(node: Node, depth: int = 0) -> bool:
    """A tensor made from Python numbers (`torch.as_tensor(4)`, `torch.tensor(n)` of a size)
    or by torch ops on such tensors only. Its fake tensor carries the value, so dynamo reads it
    as an int without a break (measured: `x.reshape(torch.min(torch.as_tensor(g),
    torch.as_tensor(N)), -1)` compiles one graph, gen_stylegan_disc.py)."""
    used = [n for n in node.inputs() if not is_metadata(n)]
    if node.op == "call_function" and node.target in PYTHON_NUMBER_FACTORIES:
        return not used
    return (depth < 8 and node.op in ("call_function", "call_method") and bool(used)
            and all(made_from_python_numbers(n, depth + 1) for n in used))


def needs_grad_from(*values: Value) -> bool:
    """Does autograd already track a result computed from these values?"""
    return any(isinstance(v, Tensor) and v.needs_grad for v in values)


def only_weak(*values: Value) -> bool:
    """Python operators and builtins also work on ints: on assumed tensors they give assumed
    tensors; one definite tensor operand makes the result definite."""
    return not any(is_definite_tensor(v) for v in values)


def all_scalar(*values: Value) -> bool:
    return all(v.scalar for v in values if isinstance(v, Tensor))


def has_bool_mask(key: Value) -> bool:
    """A boolean tensor index. Comparisons of assumed tensors count too: nobody indexes a
    tensor with the Python bool they would give for an int."""
    if isinstance(key, Tensor):
        return key.is_bool
    if isinstance(key, Seq) and key.items is not None:
        return any(isinstance(k, Tensor) and k.is_bool for k in key.items)
    return False


def sparse_operand(tx: Interpreter, node: Node, expr: nodes.NodeNG, frame: Frame) -> Value:
    """An operation on a sparse tensor: dynamo cannot wrap the tensor (GB0015, measured on
    torch.sparse.mm and to_dense), compiles what came before and runs the rest eagerly."""
    tx.graph_break(rules.SPARSE_TENSOR, node, expr, frame, eagerly=RestEagerly(frame.name, "a sparse tensor"))
    return Tensor(node)


# The functions of Python's `operator` module torch.fx records for each operator.
BINOPS = {
    "+": "add", "-": "sub", "*": "mul", "/": "truediv", "//": "floordiv", "%": "mod",
    "**": "pow", "@": "matmul", "&": "and_", "|": "or_", "^": "xor", "<<": "lshift",
    ">>": "rshift",
}
UNARY_OPS = {"-": "neg", "+": "pos", "~": "invert"}


def tensor_binop(tx: Interpreter, op: str, left: Value, right: Value, expr: nodes.NodeNG, frame: Frame) -> Value:
    """`left op right` with a tensor on one side (operators.binop): a graph op."""
    randoms = [v for v in (left, right) if isinstance(v, Tensor) and v.python_random]
    if randoms and not any(isinstance(v, Tensor) and not v.python_random for v in (left, right)):
        node = tx.graph.python_call(f"operator.{BINOPS.get(op, 'add')}", meta=tx.meta(expr, frame))
        # GB0213 cannot be resumed. Once a random number went into a tensor operation of this
        # frame, dynamo compiles up to that state and runs the rest eagerly; before that it gives
        # up on the whole frame (measured: noise_injection.py, grad_mode_blocks.py).
        why = "arithmetic on a Python random number"
        if frame.resume.random_in_graph:
            tx.graph_break(rules.RANDOM_NUMBER_ARITHMETIC, node, expr, frame, eagerly=RestEagerly(frame.name, why))
        else:
            tx.graph_break(rules.RANDOM_NUMBER_ARITHMETIC, node, expr, frame, eagerly=WhollyEagerly(frame.name, why))
        return Tensor(None, python_random=True)
    frame.resume.random_in_graph |= bool(randoms)
    node = tx.graph.call_function(f"operator.{BINOPS.get(op, 'add')}", (left.as_arg(), right.as_arg()),
                                  meta=tx.meta(expr, frame))
    is_bool = op in "&|^" and all(isinstance(v, Tensor) and v.is_bool for v in (left, right)
                                  if isinstance(v, Tensor))
    return Tensor(node, weak=only_weak(left, right), is_bool=is_bool, scalar=all_scalar(left, right),
                  needs_grad=not is_bool and needs_grad_from(left, right))


def tensor_unary(tx: Interpreter, op: str, operand: Tensor, expr: nodes.NodeNG, frame: Frame) -> Tensor:
    """`-x`, `+x`, `~x` of a tensor: a graph op."""
    node = tx.graph.call_function(f"operator.{UNARY_OPS[op]}", (operand.as_arg(),), meta=tx.meta(expr, frame))
    return Tensor(node, weak=operand.weak, is_bool=operand.is_bool and op == "~", scalar=operand.scalar)
