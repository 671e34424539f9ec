"""Tuples, lists and dicts: known item by item when the code builds them so."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import rules, tables
from ..interpret.resume import WhollyEagerly
from .base import UNKNOWN, Value, holds_object, signature_of
from .functions import BoundMethod, Function
from .joins import join, join_all
from .static import Static

if TYPE_CHECKING:
    from astroid import nodes

    from ..interpret.frame import Frame
    from ..interpret.interpreter import Interpreter
    from ..ir import Node

LIST_MUTATIONS = ("append", "extend", "insert")


def _local_receiver(expr: nodes.NodeNG, frame: Frame) -> bool:
    """Is the list of `name.append(...)` a local variable of the function calling it?"""
    from astroid import nodes

    receiver = expr.func.expr if isinstance(expr, nodes.Call) and isinstance(expr.func, nodes.Attribute) else None
    return isinstance(receiver, nodes.Name) and receiver.name in frame.env


@dataclass(eq=False)
class Seq(Value):
    """A tuple or list: `items` when known; `elem` alone when only the element kind is.
    `fields` names the items of a named tuple (`torch.aminmax(x).max`)."""

    items: list[Value] | None
    elem: Value = UNKNOWN
    is_list: bool = False
    fields: tuple[str, ...] = ()

    def element_kind(self) -> Value:
        """What any one item is: the join of the items."""
        if self.items is None:
            return self.elem
        return join_all(self.items) if self.items else UNKNOWN

    def is_none(self) -> bool | None:
        return False

    def joined(self, other: Value) -> Value | None:
        if isinstance(other, Seq) and self.is_list == other.is_list and self.fields == other.fields:
            return _join_sequences(self, other)
        return _join_with_none(self, other)

    def var_getattr(self, tx: Interpreter, name: str, expr: nodes.NodeNG, frame: Frame) -> Value:
        if name in self.fields and self.items is not None:
            return self.items[self.fields.index(name)]
        return BoundMethod(self, name)

    def call_method(self, tx: Interpreter, name: str, args: list[Value], kwargs: dict[str, Value],
                    expr: nodes.NodeNG, frame: Frame) -> Value:
        if name in LIST_MUTATIONS and self.is_list and tx.breaks.checkpoint_calls and not _local_receiver(expr, frame):
            # A list from outside a checkpointed function, appended to in it: dynamo's
            # checkpoint op cannot hold the mutation (GB0067, measured: cfg_checkpoint_side_effects.py).
            node = tx.graph.python_call(f"list.{name}", meta=tx.meta(expr, frame))
            tx.graph_break(rules.SIDE_EFFECT_IN_CHECKPOINT, node, expr, frame, gb_ids=("GB0067",))
        if name == "sort" and isinstance(kwargs.get("key"), Function):
            kwargs["key"].call(tx, [self.element_kind()], {}, expr, frame)  # the key runs on each item
        if self.items is not None:
            if name in LIST_MUTATIONS and self.is_list:
                tx.heap.record(self)
                if name == "append" and args:
                    self.items.append(args[0])
                elif name == "extend" and args and isinstance(args[0], Seq) and args[0].items is not None:
                    self.items.extend(args[0].items)
                else:
                    self.elem, self.items = self.element_kind(), None
                if self.items is not None and len(self.items) > tx.options.max_unroll:
                    self.elem, self.items = self.element_kind(), None
                return Static(None)
            if name in ("index", "count"):
                return Static()
            if name == "pop":
                return self.element_kind()
        if name in LIST_MUTATIONS:
            return Static(None)
        return UNKNOWN

    def state(self) -> tuple:
        return (None if self.items is None else list(self.items), self.elem)

    def restore(self, state: tuple) -> None:
        items, self.elem = state
        self.items = None if items is None else list(items)

    def join_states(self, a: tuple, b: tuple) -> tuple:
        """Same length: item by item; otherwise only the element kind, of the non-empty sides."""
        (items_a, elem_a), (items_b, _) = a, b
        if items_a is not None and items_b is not None and len(items_a) == len(items_b):
            return [join(x, y) for x, y in zip(items_a, items_b)], elem_a
        kinds = [elem if items is None else join_all(items) for items, elem in (a, b) if items is None or items]
        return None, join_all(kinds) if kinds else UNKNOWN

    def subscript(self, tx: Interpreter, key: Value, expr: nodes.NodeNG, frame: Frame) -> Value:
        if isinstance(key, Static) and key.known and self.items is not None:
            try:
                picked = self.items[key.value]
                return Seq(picked, is_list=self.is_list) if isinstance(picked, list) else picked
            except (TypeError, IndexError):
                return UNKNOWN
        if isinstance(key, Static) and isinstance(key.value, slice):
            return Seq(None, elem=self.element_kind(), is_list=self.is_list)
        return self.element_kind()

    def truth(self, tx: Interpreter, expr: nodes.NodeNG, frame: Frame) -> tuple[bool | None, Node | None]:
        if self.items is not None:
            return bool(self.items), None
        return None, None

    def iterate(self, tx: Interpreter) -> list[Value] | None:
        if self.items is not None and len(self.items) <= tx.options.max_unroll:
            return list(self.items)
        return None

    def element(self, tx: Interpreter, expr: nodes.NodeNG | None, frame: Frame | None) -> Value:
        return self.element_kind()

    def as_arg(self) -> Any:
        return tuple(v.as_arg() for v in self.items) if self.items is not None else "<seq>"

    def signature(self, depth: int) -> Any:
        if self.items is None or len(self.items) > 16:
            return ("Q", signature_of(self.element_kind(), depth + 1))
        return ("Q", tuple(signature_of(v, depth + 1) for v in self.items))

    def rebind(self, node: Node) -> Value:
        if self.items is None:
            return Seq(None, elem=self.elem.rebind(node), is_list=self.is_list)
        return Seq([v.rebind(node) for v in self.items], is_list=self.is_list, fields=self.fields)

    def in_graph(self, tx: Interpreter) -> Value:
        """Copied only when an item changes, so that forward's own writes to a container made
        in `__init__` stay visible to its later reads."""
        items = None if self.items is None else [item.in_graph(tx) for item in self.items]
        elem = self.elem.in_graph(tx)
        if elem is self.elem and (items is None or all(a is b for a, b in zip(items, self.items))):
            return self
        return Seq(items, elem=elem, is_list=self.is_list, fields=self.fields)

    def holds_object(self, depth: int = 0) -> bool:
        if depth > 3 or self.items is None:
            return False
        return any(holds_object(v, depth + 1) for v in self.items)


@dataclass(eq=False)
class Dict(Value):
    """A dict; `complete` when every key is known (a lookup of a missing key is then a fact)."""

    items: dict[Any, Value] = field(default_factory=dict)
    complete: bool = True
    maybe: frozenset = frozenset()  # keys set on some paths only: they may be missing
    # A compile root's **kwargs: its caller may pass any key, and the default call (`model(x)`)
    # passes none, so a missing key's lookup gives its default, only assumed.
    absent_assumed: bool = False

    @property
    def exact(self) -> bool:
        """Are the keys known exactly (none missing, none that may be absent)?"""
        return self.complete and not self.maybe

    def has(self, key: Any) -> bool | None:
        """Is `key` (a known static key) in the dict, if that is known? Raises TypeError if unhashable."""
        if key in self.items:
            return None if key in self.maybe else True
        return False if self.complete else None

    def is_none(self) -> bool | None:
        return False

    def joined(self, other: Value) -> Value | None:
        return _join_with_none(self, other)

    def var_getattr(self, tx: Interpreter, name: str, expr: nodes.NodeNG, frame: Frame) -> Value:
        return BoundMethod(self, name)

    def call_method(self, tx: Interpreter, name: str, args: list[Value], kwargs: dict[str, Value],
                    expr: nodes.NodeNG, frame: Frame) -> Value:
        if name == "get":
            return self.lookup(args)
        if name == "__getitem__" and len(args) == 1:
            return self.subscript(tx, args[0], expr, frame)
        if name == "__setitem__" and len(args) == 2:
            self.store_item(tx, args[0], args[1], expr, frame)
            return Static(None)
        if name == "update" and args and isinstance(args[0], Dict):
            tx.heap.record(self)
            self.items.update(args[0].items)
            self.complete &= args[0].complete
            return Static(None)
        if name == "keys":
            return Seq([Static(k) for k in self.items]) if self.exact else Seq(None, elem=Static())
        if name == "values":
            return Seq(list(self.items.values())) if self.exact else Seq(None)
        if name == "items":
            if self.exact:
                return Seq([Seq([Static(k), v]) for k, v in self.items.items()])
            return Seq(None)
        if name in ("pop", "setdefault"):
            found = self.lookup(args) if name == "pop" else UNKNOWN
            tx.heap.record(self)
            key = args[0] if args else UNKNOWN
            if name == "pop" and isinstance(key, Static) and key.known:
                try:
                    self.items.pop(key.value, None)
                except TypeError:  # an unhashable key: no dict holds it
                    pass
            self.complete = False
            return found
        return UNKNOWN

    def lookup(self, args: list[Value]) -> Value:
        """`get(key, default)`, and `pop`'s result: what the key holds, when that is known."""
        key = args[0] if args else UNKNOWN
        default = args[1] if len(args) > 1 else Static(None)
        if not (isinstance(key, Static) and key.known):
            return UNKNOWN
        try:
            present = self.has(key.value)
        except TypeError:
            return UNKNOWN
        if present is False:
            return default
        if key.value in self.items:
            return self.items[key.value] if present else join(self.items[key.value], default)
        return assume(default) if self.absent_assumed else UNKNOWN

    def state(self) -> tuple:
        return dict(self.items), self.complete, self.maybe

    def restore(self, state: tuple) -> None:
        items, self.complete, self.maybe = state
        self.items = dict(items)

    def join_states(self, a: tuple, b: tuple) -> tuple:
        """A key set on one path only keeps its value, but may be missing."""
        (items_a, complete_a, maybe_a), (items_b, complete_b, maybe_b) = a, b
        items = {key: join(items_a[key], items_b[key]) if key in items_a and key in items_b
                 else items_a.get(key, items_b.get(key)) for key in {**items_a, **items_b}}
        one_path = {key for key in items if (key in items_a) != (key in items_b)}
        return items, complete_a and complete_b, frozenset(maybe_a | maybe_b | one_path)

    def subscript(self, tx: Interpreter, key: Value, expr: nodes.NodeNG, frame: Frame) -> Value:
        if isinstance(key, Static) and key.known:
            try:
                if key.value in self.items:
                    return self.items[key.value]
            except TypeError:
                return UNKNOWN
            return UNKNOWN
        return join_all(list(self.items.values())) if self.items else UNKNOWN

    def store_item(self, tx: Interpreter, key: Value, value: Value, target: nodes.NodeNG,
                   frame: Frame) -> None:
        tx.heap.record(self)
        try:
            # An unknown key still stores a value a later unknown lookup may return.
            self.items[key.value if isinstance(key, Static) and key.known else object()] = value
        except TypeError:
            self.complete = False
        if not (isinstance(key, Static) and key.known):
            self.complete = False

    def truth(self, tx: Interpreter, expr: nodes.NodeNG, frame: Frame) -> tuple[bool | None, Node | None]:
        if any(key not in self.maybe for key in self.items):
            return True, None
        if self.exact:
            return False, None
        return None, None

    def iterate(self, tx: Interpreter) -> list[Value] | None:
        if self.exact and len(self.items) <= tx.options.max_unroll:
            return [Static(k) for k in self.items]
        return None

    def element(self, tx: Interpreter, expr: nodes.NodeNG | None, frame: Frame | None) -> Value:
        return Static()

    def signature(self, depth: int) -> Any:
        return ("D", self.complete, len(self.maybe), tuple(sorted(
            ((repr(k), signature_of(v, depth + 1)) for k, v in self.items.items()))))

    def rebind(self, node: Node) -> Value:
        return Dict({k: v.rebind(node) for k, v in self.items.items()}, self.complete, self.maybe)

    def in_graph(self, tx: Interpreter) -> Value:
        items = {key: item.in_graph(tx) for key, item in self.items.items()}
        if all(items[key] is item for key, item in self.items.items()):
            return self
        return Dict(items, self.complete, self.maybe)

    def holds_object(self, depth: int = 0) -> bool:
        if depth > 3:
            return False
        return any(holds_object(v, depth + 1) for v in self.items.values())


@dataclass(eq=False)
class OrNone(Value):
    """A tuple, list or dict on some paths and None on the others (`iter(grid) if grid is not
    None else None`). Whether it is None is not known; but what fails on None (an item, a
    lookup, a loop, a method) can only go on with the container, so those are the container's."""

    container: Seq | Dict

    def joined(self, other: Value) -> Value | None:
        return _join_with_none(self, other)

    def var_getattr(self, tx: Interpreter, name: str, expr: nodes.NodeNG, frame: Frame) -> Value:
        return self.container.var_getattr(tx, name, expr, frame)

    def call_method(self, tx: Interpreter, name: str, args: list[Value], kwargs: dict[str, Value],
                    expr: nodes.NodeNG, frame: Frame) -> Value:
        return self.container.call_method(tx, name, args, kwargs, expr, frame)

    def subscript(self, tx: Interpreter, key: Value, expr: nodes.NodeNG, frame: Frame) -> Value:
        return self.container.subscript(tx, key, expr, frame)

    def iterate(self, tx: Interpreter) -> list[Value] | None:
        return self.container.iterate(tx)

    def element(self, tx: Interpreter, expr: nodes.NodeNG | None, frame: Frame | None) -> Value:
        return self.container.element(tx, expr, frame)

    def signature(self, depth: int) -> Any:
        return ("?", self.container.signature(depth + 1))

    def rebind(self, node: Node) -> Value:
        return OrNone(self.container.rebind(node))

    def in_graph(self, tx: Interpreter) -> Value:
        return OrNone(self.container.in_graph(tx))

    def holds_object(self, depth: int = 0) -> bool:
        return self.container.holds_object(depth)


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


def assume(value: Value) -> Value:
    """A default argument's value, marked as only assumed."""
    if isinstance(value, Static) and value.known:
        return Static(value.value, assumed=True)
    if isinstance(value, Seq) and value.items is not None:
        return Seq([assume(v) for v in value.items], is_list=value.is_list)
    return value


class PassedIterator(Value):
    """A zip, an enumerate or a dict view every caller passes a compiled function (callers.py):
    dynamo wraps it as an object it cannot step, so iterating it breaks (a `for`, a
    comprehension, `list()`; GB0811 in 2.13, GB9493 from 2.14), while passing it on or testing it
    for None does not (measured: passed_iterators.py). `kind` names it for the message."""

    def __init__(self, kind: str):
        self.kind = kind

    def describe(self) -> str:
        return self.kind

    def is_none(self) -> bool | None:
        return False

    def element(self, tx: Interpreter, expr: nodes.NodeNG | None, frame: Frame | None) -> Value:
        """Dynamo breaks where the code steps it: at a call (`list(pairs)`) it resumes after the
        call; at a `for` (a loop) or a comprehension, whose iterator the function makes before
        calling it, it gives up on the whole function (measured: "Skipping the function")."""
        from astroid import nodes

        if expr is not None and frame is not None:
            node = tx.graph.python_call("iter", (f"<{self.kind}>",), meta=tx.meta(expr, frame))
            comprehension = isinstance(expr.parent, nodes.Comprehension)
            eagerly = WhollyEagerly(frame.name, "a comprehension") if comprehension else None
            tx.graph_break(rules.PASSED_ITERATOR, node, expr, frame, eagerly=eagerly,
                           gb_ids=tables.PASSED_ITERATOR_GB.at(tx.options.torch_version))
        return UNKNOWN

    def signature(self, depth: int) -> Any:
        return ("iterator", self.kind)
