"""Static Python values: what dynamo specialises on (config, shapes, flags, strings)."""
from __future__ import annotations

import string
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from astroid import nodes

from .. import tables
from ..ir import CONFIGURED, NOT_EMPTY, Condition
from .base import NOTHING, UNKNOWN, Value
from .folding import fold, printable
from .functions import BoundMethod

if TYPE_CHECKING:
    from ..config import Options

    from ..interpret.frame import Frame
    from ..interpret.interpreter import Interpreter
    from ..ir import Node


@dataclass(eq=False)
class Static(Value):
    """A Python value dynamo specialises on; `value` is NOTHING when it is not known here."""

    value: Any = NOTHING
    # The value differs between ordinary runs (`self.training`), unlike configuration: a
    # break under it is not "conditional" (see the short-circuit handling of expressions).
    varies: bool = False
    # Known only as a default: a constructor argument's default value, or what is computed
    # from one (the model may be built with other values); or what a tensor's emptiness test
    # gives on a run with data (operators.emptiness).
    assumed: bool = False
    # The node torch.fx would record for this value (x.shape, x.size(0), arithmetic on them):
    # dynamo specialises on it, fx proxies it; the graph mirrors fx.
    node: Node | None = None
    # What its truth tells of how the model is run (`self.training`: in training mode): the
    # conditions each outcome needs, for the breaks on the path it chooses.
    when_true: tuple[Condition, ...] = ()
    when_false: tuple[Condition, ...] = ()
    # The root's input defaulting to None this is (`size: Optional[int] = None`): `size is None`
    # tests whether the caller gave it.
    optional_input: str = ""

    @classmethod
    def testing(cls, condition: Condition, options: Options) -> Static:
        """A flag true exactly when `condition` holds: known when the options say how the model
        runs, else one that differs between ordinary runs."""
        settled = options.settles(condition)
        if settled is not None:
            return cls(settled)
        return cls(varies=True, when_true=(condition,), when_false=(condition.negated(),))

    @property
    def known(self) -> bool:
        return self.value is not NOTHING

    def is_none(self) -> bool | None:
        if self.node is not None:
            return False  # a size or a number fx records (`x.size(0)`) is never None
        return self.value is None if self.known else None

    def joined(self, other: Value) -> Value | None:
        if not isinstance(other, Static):
            return None
        if self.node is not other.node:
            return Static()
        if self.known and other.known and type(self.value) is type(other.value):
            try:
                if self.value == other.value:
                    return self if not other.assumed else other
            except Exception:  # noqa: BLE001 - arbitrary __eq__ of a static value
                pass
        return Static()

    def describe(self) -> str:
        return f"static {self.value!r}" if self.known else "static"

    def var_getattr(self, tx: Interpreter, name: str, expr: nodes.NodeNG, frame: Frame) -> Value:
        if self.known and isinstance(self.value, (str, bytes)) and name.startswith(("__",)) is False:
            return BoundMethod(self, name)
        return Static() if not name[:1].isupper() else UNKNOWN

    def call_method(self, tx: Interpreter, name: str, args: list[Value], kwargs: dict[str, Value],
                    expr: nodes.NodeNG, frame: Frame) -> Value:
        """Methods of a known string are computed (`mode.startswith("conv")`), and `format` as
        f-strings are (`getattr(self, "{}_reduction".format(kind))`)."""
        if not (self.known and isinstance(self.value, str)):
            return Static()
        operands = [*args, *kwargs.values()]
        if name == "format" and all(isinstance(a, Static) and a.known and isinstance(a.value, FORMATTED_TYPES)
                                    for a in operands) and plain_fields(self.value):
            result = fold(self.value.format, *(a.value for a in args), **{k: v.value for k, v in kwargs.items()})
            if isinstance(result, str):
                return derived(result, self, *operands)
        if name in tables.FOLDED_STR_METHODS and not kwargs and all(
                isinstance(a, Static) and a.known for a in args):
            result = fold(getattr(self.value, name), *(a.value for a in args))
            if isinstance(result, (str, bool, int, tuple)):
                return derived(result, self, *args)
        return Static()

    def subscript(self, tx: Interpreter, key: Value, expr: nodes.NodeNG, frame: Frame) -> Value:
        if self.node is not None:  # x.shape[1]: fx records the getitem
            node = tx.graph.call_function("operator.getitem", (self.as_arg(), key.as_arg()),
                                          meta=dict(tx.meta(expr, frame), on_python_numbers=True))
            if _first_dimension(expr, key):
                return element_count(expr.value.expr.as_string(), node)
            return Static(node=node)
        if self.known and isinstance(key, Static) and key.known:
            try:
                return derived(self.value[key.value], self, key)
            except Exception:  # noqa: BLE001 - any Python value
                return Static()
        return Static()

    def truth(self, tx: Interpreter, expr: nodes.NodeNG, frame: Frame) -> tuple[bool | None, Node | None]:
        if self.known:
            if self.assumed and tx.options.any_configuration:
                return None, None  # both are explored: the model may be built otherwise
            try:
                return bool(self.value), None
            except Exception:  # noqa: BLE001 - any Python value
                return None, None
        if self.varies and tx.options.follow_defaults:
            return True, None  # self.training: a module is built in training mode
        return None, None

    def element(self, tx: Interpreter, expr: nodes.NodeNG | None, frame: Frame | None) -> Value:
        return Static()

    def as_arg(self) -> Any:
        if self.node is not None:
            return self.node
        return self.value if self.known and printable(self.value) else "<static>"

    def rebind(self, node: Node) -> Value:
        """A size or number fx records, returned by a reused call summary, is the new call's
        (its old node belongs to the call inlined before, perhaps in another root's graph)."""
        return self if self.node is None else replace(self, node=node)

    def in_graph(self, tx: Interpreter) -> Value:
        """A number computed in `__init__` (`self.scale = t.item()`) is a constant here."""
        if self.node is not None and not tx.graph.owns(self.node):
            return replace(self, node=None)
        return self

    def signature(self, depth: int) -> Any:
        """Its value, and what a test of it decides: whether it varies between runs and the
        conditions of each outcome (a call given `self.training` is not one given an unknown
        flag: the breaks under `if training:` are reported for one, held back for the other)."""
        tested = (self.varies, self.assumed, self.when_true, self.when_false, self.optional_input)
        try:
            hash(self.value)
        except TypeError:
            return ("S", "?", tested)
        return ("S", self.value if self.known else "?", tested)


@dataclass(eq=False)
class TensorDtype(Static):
    """`x.dtype` of a tensor that need not be a mask: which floating dtype it is differs between
    the ways a model is run (float32, float16 under mixed precision)."""


@dataclass(eq=False)
class TensorDevice(Static):
    """`x.device` of a tensor: which device it is differs between the ways a model is run."""

    def var_getattr(self, tx: Interpreter, name: str, expr: nodes.NodeNG, frame: Frame) -> Value:
        return TensorDeviceType() if name == "type" else super().var_getattr(tx, name, expr, frame)


@dataclass(eq=False)
class TensorDeviceType(Static):
    """`x.device.type`: compared with a name (`== "cuda"`), it tests the device the model runs on."""


@dataclass(frozen=True)
class EnumMember:
    """A member of a project Enum, compared by class and name as Python compares members."""

    enum: str
    name: str

    def __repr__(self) -> str:
        return f"{self.enum.rsplit('.', 1)[-1]}.{self.name}"


# What str.format and f-strings put in a known string: values whose text is short and plain.
FORMATTED_TYPES = (str, int, float, bool, type(None))


def plain_fields(template: str) -> bool:
    """Does each field of a format string name an argument, with no format spec, attribute or
    index (`"{}_{name}"`)? Then the result is no longer than the template and its arguments."""
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError:
        return False
    return all(field is None or (field == "" or field.isidentifier() or field.isdigit()) and not spec
               for _, field, spec, _ in fields)


def derived(value: Any, *operands: Value) -> Static:
    """A static value computed from `operands`: assumed if any of them is. Computed from one
    setting (`not self.debug`, `self.mode == "fast"`), an outcome other than the default one
    needs that setting away from its default."""
    result = Static(value, assumed=any(isinstance(o, Static) and o.assumed for o in operands))
    away = {c for o in operands if isinstance(o, Static) for c in (*o.when_true, *o.when_false)
            if c.kind == CONFIGURED and c.holds}
    return configured_by(result, away.pop()) if len(away) == 1 else result


def element_count(tensor: str, node: Node | None = None) -> Static:
    """`len(t)`, `t.numel()` of the tensor written `tensor`: not known, but true exactly when the
    tensor has elements (a count compared with 0 tests that: operators.emptiness)."""
    has_elements = Condition(NOT_EMPTY, tensor)
    return Static(node=node, when_true=(has_elements,), when_false=(has_elements.negated(),))


def _first_dimension(expr: nodes.NodeNG, key: Value) -> bool:
    """Is `expr` `t.shape[0]`, which is 0 exactly when a run's batch of `t` is empty?"""
    return isinstance(expr, nodes.Subscript) and isinstance(expr.value, nodes.Attribute) \
        and expr.value.attrname == "shape" and isinstance(key, Static) and key.value == 0 and type(key.value) is int


def counted(value: Value) -> Condition | None:
    """The tensor's having elements, if `value` is its element count (element_count)."""
    if isinstance(value, Static) and not value.known and len(value.when_true) == 1 \
            and value.when_true[0].kind == NOT_EMPTY and value.when_true[0].holds:
        return value.when_true[0]
    return None


def setting(value: Value, name: str) -> Value:
    """The default of the constructor argument or config field `name` (`debug=False`): testing
    it, the outcome a model built with defaults does not take needs `name` set otherwise."""
    if not (isinstance(value, Static) and value.known and printable(value.value)):
        return value
    away = Condition(CONFIGURED, name, True, repr(value.value))
    return configured_by(value, away, default_side=away.negated())


def configured_by(value: Static, away: Condition, default_side: Condition | None = None) -> Static:
    truth = assumed_truth(value)
    if truth is None:
        return value
    needs = {not truth: (away,), truth: (default_side,) if default_side else ()}
    return replace(value, when_true=needs[True], when_false=needs[False])


def assumed_truth(value: Value) -> bool | None:
    """The truth of a value known from constructor defaults, if it is one."""
    if isinstance(value, Static) and value.assumed and value.known:
        try:
            return bool(value.value)
        except Exception:  # noqa: BLE001 - any Python value
            return None
    return None
