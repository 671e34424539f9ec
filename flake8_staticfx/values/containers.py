"""Tuples, lists and dicts: known item by item when the code builds them so."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .base import UNKNOWN, Value
from .static import Static

if TYPE_CHECKING:
    from astroid import nodes

    from ..inline import Frame
    from ..interpreter import Interpreter
    from ..ir import Node

LIST_MUTATIONS = ("append", "extend", "insert")


@dataclass(eq=False)
class Seq(Value):
    """A tuple or list: `items` when known; `elem` alone when only the element kind is."""

    items: list[Value] | None
    elem: Value = UNKNOWN
    is_list: bool = False

    def element_kind(self) -> Value:
        """What any one item is: the join of the items."""
        from .joins import join_all

        if self.items is None:
            return self.elem
        return join_all(self.items) if self.items else UNKNOWN

    def var_getattr(self, tx: Interpreter, name: str, expr: nodes.NodeNG, frame: Frame) -> Value:
        from .objects import BoundMethod

        return BoundMethod(self, name)

    def call_method(self, tx: Interpreter, name: str, args: list[Value], kwargs: dict[str, Value],
                    expr: nodes.NodeNG, frame: Frame) -> Value:
        from .objects import Function

        if name == "sort" and isinstance(kwargs.get("key"), Function):
            kwargs["key"].call(tx, [self.element_kind()], {}, expr, frame)  # the key runs on each item
        if self.items is not None:
            if name in LIST_MUTATIONS and self.is_list:
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
        from .base import signature_of

        if self.items is None or len(self.items) > 16:
            return ("Q", signature_of(self.element_kind(), depth + 1))
        return ("Q", tuple(signature_of(v, depth + 1) for v in self.items))

    def rebind(self, node: Node) -> Value:
        if self.items is None:
            return Seq(None, elem=self.elem.rebind(node), is_list=self.is_list)
        return Seq([v.rebind(node) for v in self.items], is_list=self.is_list)

    def in_graph(self, tx: Interpreter) -> Value:
        """Copied only when an item changes, so that forward's own writes to a container made
        in `__init__` stay visible to its later reads."""
        items = None if self.items is None else [item.in_graph(tx) for item in self.items]
        elem = self.elem.in_graph(tx)
        if elem is self.elem and (items is None or all(a is b for a, b in zip(items, self.items))):
            return self
        return Seq(items, elem=elem, is_list=self.is_list)

    def holds_object(self, depth: int = 0) -> bool:
        from .base import holds_object

        if depth > 3 or self.items is None:
            return False
        return any(holds_object(v, depth + 1) for v in self.items)


@dataclass(eq=False)
class Dict(Value):
    """A dict; `complete` when every key is known (a lookup of a missing key is then a fact)."""

    items: dict[Any, Value] = field(default_factory=dict)
    complete: bool = True

    def var_getattr(self, tx: Interpreter, name: str, expr: nodes.NodeNG, frame: Frame) -> Value:
        from .objects import BoundMethod

        return BoundMethod(self, name)

    def call_method(self, tx: Interpreter, name: str, args: list[Value], kwargs: dict[str, Value],
                    expr: nodes.NodeNG, frame: Frame) -> Value:
        if name == "get":
            key = args[0] if args else UNKNOWN
            if isinstance(key, Static) and key.known:
                try:
                    if key.value in self.items:
                        return self.items[key.value]
                except TypeError:
                    return UNKNOWN
                if self.complete:
                    return args[1] if len(args) > 1 else Static(None)
            return UNKNOWN
        if name == "update" and args and isinstance(args[0], Dict):
            self.items.update(args[0].items)
            self.complete &= args[0].complete
            return Static(None)
        if name == "keys":
            return Seq([Static(k) for k in self.items]) if self.complete else Seq(None, elem=Static())
        if name == "values":
            return Seq(list(self.items.values())) if self.complete else Seq(None)
        if name == "items":
            if self.complete:
                return Seq([Seq([Static(k), v]) for k, v in self.items.items()])
            return Seq(None)
        if name in ("pop", "setdefault"):
            self.complete = False
        return UNKNOWN

    def subscript(self, tx: Interpreter, key: Value, expr: nodes.NodeNG, frame: Frame) -> Value:
        from .joins import join_all

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
        try:
            # An unknown key still stores a value a later unknown lookup may return.
            self.items[key.value if isinstance(key, Static) and key.known else object()] = value
        except TypeError:
            self.complete = False
        if not (isinstance(key, Static) and key.known):
            self.complete = False

    def truth(self, tx: Interpreter, expr: nodes.NodeNG, frame: Frame) -> tuple[bool | None, Node | None]:
        if self.complete:
            return bool(self.items), None
        return None, None

    def iterate(self, tx: Interpreter) -> list[Value] | None:
        if self.complete and len(self.items) <= tx.options.max_unroll:
            return [Static(k) for k in self.items]
        return None

    def element(self, tx: Interpreter, expr: nodes.NodeNG | None, frame: Frame | None) -> Value:
        return Static()

    def signature(self, depth: int) -> Any:
        from .base import signature_of

        return ("D", self.complete, tuple(sorted(
            ((repr(k), signature_of(v, depth + 1)) for k, v in self.items.items()))))

    def rebind(self, node: Node) -> Value:
        return Dict({k: v.rebind(node) for k, v in self.items.items()}, complete=self.complete)

    def in_graph(self, tx: Interpreter) -> Value:
        items = {key: item.in_graph(tx) for key, item in self.items.items()}
        if all(items[key] is item for key, item in self.items.items()):
            return self
        return Dict(items, self.complete)

    def holds_object(self, depth: int = 0) -> bool:
        from .base import holds_object

        if depth > 3:
            return False
        return any(holds_object(v, depth + 1) for v in self.items.values())
