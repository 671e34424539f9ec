"""What a variable is after two paths merge."""
from __future__ import annotations

from .. import tables
from .base import UNKNOWN, Value
from .containers import Dict, OrNone, Seq
from .externals import External
from .modules import LeafModule, Module
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
    if isinstance(a, Module) and isinstance(b, Module) and a.path == b.path and _same_layer(a, b):
        return a
    if isinstance(a, Function) and isinstance(b, Function) and a.node is b.node:
        return a
    if isinstance(a, External) and isinstance(b, External) and _same_external(a.qname, b.qname):
        return a
    if isinstance(a, Seq) and isinstance(b, Seq) and a.is_list == b.is_list and a.fields == b.fields:
        return _join_sequences(a, b)
    return _join_with_none(a, b) or _join_with_none(b, a) or UNKNOWN


def _same_layer(a: Module, b: Module) -> bool:
    """Two modules at one place that do the same when called: of one class, or two torch
    layers whose calls both trace, each a `call_module` of that place (timm's `_create_fc` makes
    an nn.Identity or an nn.Linear). Not an LSTM and a Linear: the two paths of `__init__`'s
    `if mode == "lstm":` decide whether the call breaks."""
    if type(a) is type(b) and a.qname == b.qname and a.cls is b.cls:
        return True
    return isinstance(a, LeafModule) and isinstance(b, LeafModule) and not {a.qname, b.qname} & tables.RNN_MODULES


def _same_external(a: str, b: str) -> bool:
    """One name, or two that do the same (`parametrizations.weight_norm` if torch has it, else
    `utils.weight_norm`: either returns the module it is given)."""
    return a == b or (a in tables.RETURNS_ITS_MODULE and b in tables.RETURNS_ITS_MODULE)


def _join_sequences(a: Seq, b: Seq) -> Seq:
    """Two tuples of one length keep their items, joined; otherwise (a list is one object,
    which the code after may change) only what any item is."""
    if not a.is_list and a.items is not None and b.items is not None and len(a.items) == len(b.items):
        return Seq([join(x, y) for x, y in zip(a.items, b.items)], fields=a.fields)
    return Seq(None, elem=join(a.element_kind(), b.element_kind()), is_list=a.is_list)


def _join_with_none(a: Value, b: Value) -> Value | None:
    """A container on one path and None (or a container or None) on the other."""
    container = a.container if isinstance(a, OrNone) else a
    if not isinstance(container, (Seq, Dict)):
        return None
    if isinstance(b, Static) and b.known and b.value is None:
        return OrNone(container)
    other = b.container if isinstance(b, OrNone) else b
    if isinstance(a, OrNone) or isinstance(b, OrNone):
        joined = join(container, other)
        return OrNone(joined) if isinstance(joined, (Seq, Dict)) else None
    return None


def join_attributes(a: dict, b: dict) -> dict:
    """Attributes (or fields, or written values) after two paths meet: one set on a single
    path only is not known."""
    return {key: join(a[key], b[key]) if key in a and key in b else UNKNOWN for key in {**a, **b}}


def join_all(values: list[Value]) -> Value:
    result = values[0]
    for value in values[1:]:
        result = join(result, value)
    return result
