"""Python's operators, which dispatch on the kinds of two operands.

They live with the value classes because they are what two kinds of value do together:
double dispatch written as ordered tests (a tensor on either side wins, then numpy arrays,
then static values, then sequences), which a table keyed by the pair of kinds, as dynamo's
`BuiltinVariable._binop_handlers`, would have to spell out for every pair and its order.
"""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING

from astroid import nodes

from .. import rules, tables
from ..ir import DEVICE, FLOAT_DTYPE, INPUT_GIVEN, Condition
from .base import NOTHING, UNKNOWN, Value
from .containers import Dict, Seq
from .externals import External
from .folding import fold
from .joins import join
from .static import EnumMember, Static, TensorDeviceType, TensorDtype, counted, derived
from .tensors import (BINOPS, UNARY_OPS, NdArray, Tensor, all_scalar, is_definite_tensor, only_weak, tensor_binop,
                      tensor_unary)

if TYPE_CHECKING:
    from ..interpret.frame import Frame
    from ..interpret.interpreter import Interpreter

COMPARE_OPS = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq", "!=": "ne"}
PY_BINOPS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow,
}
PY_COMPARE = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
    "==": operator.eq, "!=": operator.ne,
}
PY_UNARY = {"-": operator.neg, "+": operator.pos, "~": operator.invert}


def binop(tx: Interpreter, op: str, left: Value, right: Value, expr: nodes.NodeNG, frame: Frame) -> Value:
    if isinstance(left, Tensor) or isinstance(right, Tensor):
        return tensor_binop(tx, op, left, right, expr, frame)
    if NdArray in (type(left), type(right)):
        return NdArray(any_array_holds_data(left, right))  # arange(n) * step: an array whatever the number
    if isinstance(left, Static) and isinstance(right, Static) and (left.node or right.node):
        node = tx.graph.call_function(f"operator.{BINOPS.get(op, 'add')}", (left.as_arg(), right.as_arg()),
                                      meta=dict(tx.meta(expr, frame), on_python_numbers=True))
        return Static(node=node)
    if isinstance(left, Static) and isinstance(right, Static):
        if left.known and right.known and op in PY_BINOPS:
            result = fold(PY_BINOPS[op], left.value, right.value)
            if result is not NOTHING:
                return derived(result, left, right)
        return Static()
    if isinstance(left, Seq) and isinstance(right, Seq) and op == "+":
        if left.items is not None and right.items is not None:
            return Seq([*left.items, *right.items], is_list=left.is_list)
        return Seq(None, elem=join(left.element_kind(), right.element_kind()), is_list=left.is_list)
    if op == "*" and isinstance(left, Seq) != isinstance(right, Seq) and Static in (type(left), type(right)):
        seq, count = (left, right) if isinstance(left, Seq) else (right, left)
        return repeat_sequence(tx, seq, count)
    return UNKNOWN


def repeat_sequence(tx: Interpreter, seq: Seq, count: Static) -> Seq:
    """`(None,) * len(self.layers)`: a known count repeats known items, so that a loop zipping
    it with a module list still unrolls."""
    if seq.items is not None and isinstance(count.value, int) and len(seq.items) * count.value <= tx.options.max_unroll:
        return Seq(seq.items * max(count.value, 0), is_list=seq.is_list)
    return Seq(None, elem=seq.element_kind(), is_list=seq.is_list)


def unary(tx: Interpreter, op: str, operand: Value, expr: nodes.NodeNG, frame: Frame) -> Value:
    """`-x`, `+x`, `~x` (`not` is a truth test: see the expression evaluator)."""
    if isinstance(operand, Tensor):
        return tensor_unary(tx, op, operand, expr, frame)
    if isinstance(operand, Static) and operand.node is not None:  # `-x.shape[-1]`, drawn as fx does
        node = tx.graph.call_function(f"operator.{UNARY_OPS[op]}", (operand.as_arg(),),
                                      meta=dict(tx.meta(expr, frame), on_python_numbers=True))
        return Static(node=node)
    if isinstance(operand, Static) and operand.known:
        try:
            return derived(PY_UNARY[op](operand.value), operand)
        except Exception:  # noqa: BLE001 - any Python value
            return Static()
    return Static() if isinstance(operand, Static) else UNKNOWN


def compare(tx: Interpreter, op: str, left: Value, right: Value, expr: nodes.NodeNG, frame: Frame) -> Value:
    if op in ("is", "is not"):
        given = optional_input_given(left, right)
        if given is not None:  # whether an optional input was passed differs between ordinary calls
            return Static.testing(given if op == "is not" else given.negated(), tx.options)
        same = identity(left, right)
        if same is None:  # an input assumed a tensor may be None, or something else
            return Static(varies=any(isinstance(v, Tensor) and v.weak for v in (left, right)))
        return derived(same if op == "is" else not same, left, right)
    if op in ("in", "not in"):
        return membership(tx, op, left, right, expr, frame)
    tested_run = run_test(tx, op, left, right) or emptiness(op, left, right)
    if tested_run is not None:
        return tested_run
    if NdArray in (type(left), type(right)) and not isinstance(left, Tensor) and not isinstance(right, Tensor):
        return NdArray(any_array_holds_data(left, right))
    if isinstance(left, Tensor) or isinstance(right, Tensor):
        if any(isinstance(v, Static) and isinstance(v.value, str) for v in (left, right)):
            return UNKNOWN  # a tensor is never compared with a string: not a tensor
        node = tx.graph.call_function(f"operator.{COMPARE_OPS[op]}", (left.as_arg(), right.as_arg()),
                                      meta=tx.meta(expr, frame))
        return Tensor(node, weak=only_weak(left, right), is_bool=True, scalar=all_scalar(left, right))
    if isinstance(left, Static) and isinstance(right, Static):
        if left.known and right.known:
            try:
                return derived(bool(PY_COMPARE[op](left.value, right.value)), left, right)
            except Exception:  # noqa: BLE001 - any Python value
                return Static()
        return Static()
    if isinstance(left, Seq) and isinstance(right, Seq) and left.is_list == right.is_list:
        return compare_items(tx, left, right, expr, frame)
    if isinstance(left, Static) and isinstance(right, (Seq, Dict)) or \
            isinstance(right, Static) and isinstance(left, (Seq, Dict)):
        return Static()
    return UNKNOWN


def compare_items(tx: Interpreter, left: Seq, right: Seq, expr: nodes.NodeNG, frame: Frame) -> Value:
    """Two lists (or two tuples) compare item by item, each pair with `==` first, stopping at the
    first pair that differs; a pair that gives a tensor (`size == count_tensor`) has no value
    dynamo knows, and it breaks (GB6622 list_richcompare_nonconst, measured:
    global_attention_asserts.py). Lists of different lengths compare no item. The pairs before
    the tensor must be known equal, unless the comparison is what an `assert` tests: on a run
    that goes on, every pair of it is equal (`assert list(x.size()) == [b, n_global, s]`)."""
    asserted = isinstance(expr.parent, nodes.Assert) and expr.parent.test is expr
    known = left.items if left.items is not None else right.items
    if known is None:
        return Static()
    pairs = [_asserted_items(side, len(known), asserted) for side in (left, right)]
    if pairs[0] is None or pairs[1] is None or len(pairs[0]) != len(pairs[1]):
        return Static()
    for a, b in zip(*pairs):
        if is_definite_tensor(a) or is_definite_tensor(b):
            node = tx.graph.python_call("operator.eq", (a.as_arg(), b.as_arg()), meta=tx.meta(expr, frame))
            tx.graph_break(rules.DATA_DEPENDENT_OPERATOR, node, expr, frame, gb_ids=("GB6622",))
            return Static()
        if not (isinstance(a, Static) and isinstance(b, Static)):
            return Static()  # an item of unknown kind: its comparison may stop the walk or break
        if asserted:
            continue
        if not (a.known and b.known and fold(operator.eq, a.value, b.value) is True):
            return Static()
    return Static()


def _asserted_items(seq: Seq, length: int, asserted: bool) -> list[Value] | None:
    """The items of one side: a list of sizes of unknown length (`list(x.size())`) has as many
    as the other side when an assert says the two are equal."""
    if seq.items is not None:
        return seq.items
    return [seq.elem] * length if asserted and isinstance(seq.elem, Static) else None


def membership(tx: Interpreter, op: str, left: Value, right: Value, expr: nodes.NodeNG, frame: Frame) -> Value:
    if is_definite_tensor(left) and isinstance(right, (Seq, Static)):
        # `t in (0, 1)` compares the tensor with each item and tests the result.
        tx.branch(left, expr, frame)
        return Static()
    if isinstance(right, Dict) and isinstance(left, Static) and left.known:
        try:
            present = right.has(left.value)
        except TypeError:
            return Static()
        if present is None:
            return Static()
        return Static(present if op == "in" else not present)
    if isinstance(right, Seq) and right.items is not None and isinstance(left, Static) and left.known \
            and all(isinstance(i, Static) and i.known for i in right.items):
        try:
            present = left.value in [i.value for i in right.items]
        except Exception:  # noqa: BLE001 - any Python value
            return Static()
        return Static(present if op == "in" else not present)
    if isinstance(left, Static) and isinstance(right, Static) and isinstance(left.value, str) \
            and isinstance(right.value, str):
        # A substring of a known text: timm's `deep_stem = 'deep' in stem_type`.
        return derived((left.value in right.value) == (op == "in"), left, right)
    if is_definite_tensor(right):
        # Tensor.__contains__ is `(right == left).any().item()`: a Python bool (GB0124).
        node = tx.graph.call_method("__contains__", (right.as_arg(), left.as_arg()), meta=tx.meta(expr, frame))
        tx.graph_break(rules.TENSOR_TO_PYTHON_SCALAR, node, expr, frame)
        return Static()
    if isinstance(right, Tensor):
        return UNKNOWN
    return Static() if isinstance(left, Static) else UNKNOWN


def any_array_holds_data(*values: Value) -> bool:
    return any(isinstance(v, NdArray) and v.holds_data for v in values)


def run_test(tx: Interpreter, op: str, left: Value, right: Value) -> Static | None:
    """`x.dtype == torch.float16`, `x.device.type == "cuda"`: true when the model runs in that
    dtype (--staticfx-dtype) or on that device."""
    if op not in ("==", "!="):
        return None
    for a, b in ((left, right), (right, left)):
        tested = run_condition(a, b)
        if tested is not None:
            return Static.testing(tested if op == "==" else tested.negated(), tx.options)
    return None


# `count OP 0`: is the tensor counted empty (True), not empty (False)? With 0 on the left, the
# operator seen from the count's side (`0 < len(t)` is `len(t) > 0`).
EMPTY_WHEN_COMPARED_WITH_ZERO = {"==": True, "<=": True, "!=": False, ">": False}
SEEN_FROM_THE_RIGHT = {"==": "==", "!=": "!=", "<": ">", ">=": "<="}


def emptiness(op: str, left: Value, right: Value) -> Static | None:
    """`len(idx) == 0`, `t.numel() > 0`: whether a tensor is empty, which dynamo specialises on
    (sizes 0 and 1 always are: no break, a guard). A run's data are taken to have elements: the
    outcome an empty tensor takes is assumed not to be the run's (a path some calls take, its
    breaks held back), the other is, and says so (`when `idx` is not empty`)."""
    for count, zero, seen in ((left, right, op), (right, left, SEEN_FROM_THE_RIGHT.get(op))):
        has_elements = counted(count)
        if has_elements is None or seen not in EMPTY_WHEN_COMPARED_WITH_ZERO \
                or not (isinstance(zero, Static) and type(zero.value) is int and zero.value == 0):
            continue
        empty = EMPTY_WHEN_COMPARED_WITH_ZERO[seen]
        is_empty = has_elements.negated()
        return Static(not empty, assumed=True, when_true=(is_empty if empty else has_elements,),
                      when_false=(has_elements if empty else is_empty,))
    return None


def run_condition(tested: Value, name: Value) -> Condition | None:
    """The condition `tested == name` is true under: a floating dtype, or a device type."""
    if isinstance(tested, TensorDtype) and isinstance(name, External) and name.qname in tables.FLOAT_DTYPES:
        return Condition(FLOAT_DTYPE, tables.FLOAT_DTYPES[name.qname])
    if isinstance(tested, TensorDeviceType) and isinstance(name, Static) and isinstance(name.value, str):
        return Condition(DEVICE, name.value)
    return None


def optional_input_given(left: Value, right: Value) -> Condition | None:
    """`mask is None` of a root input defaulting to None: the test is whether it was given,
    whatever the lint assumes of it."""
    for a, b in ((left, right), (right, left)):
        name = a.optional_input() if isinstance(a, Tensor) else a.optional_input if isinstance(a, Static) else ""
        if name and isinstance(b, Static) and b.known and b.value is None:
            return Condition(INPUT_GIVEN, name)
    return None


def identity(left: Value, right: Value) -> bool | None:
    """`left is right` when the answer is known statically."""
    for a, b in ((left, right), (right, left)):
        if isinstance(b, Static) and b.known and b.value is None:
            return a.is_none()
    if isinstance(left, Static) and isinstance(right, Static) and left.known and right.known:
        singletons = (bool, type(None), EnumMember)
        if isinstance(left.value, singletons) and isinstance(right.value, singletons):
            return left.value == right.value and type(left.value) is type(right.value)
    return None


def both(a: Value, b: Value) -> Value:
    """`a and b` of two comparison results (a chained comparison)."""
    if isinstance(a, Static) and a.value is True:
        return b
    if isinstance(a, Static) and isinstance(b, Static):
        if a.value is False or b.value is False:
            return Static(False)
        return Static()
    return UNKNOWN
