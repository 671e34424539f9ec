"""The base of every abstract value, and what holds for values of any kind.

The one question behind every diagnostic is "tensor, static Python value, or unknown?".
Dynamo specialises on static values (shapes under static shapes, config, `self.training`),
traces tensors into the graph, and breaks where Python needs a tensor's data. Only definite
facts produce diagnostics: `Unknown` never does.

Each kind of value owns its behaviour, as dynamo's VariableTrackers do: what an attribute,
a call, a method call, a subscript, a truth test or a loop over it does. The interpreter
(`tx`) is passed in for what needs the graph, the options or inlining. The defaults here
are what an unknown value does: nothing anyone can rely on.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..ir import UNKNOWN_ARG

if TYPE_CHECKING:
    from astroid import nodes

    from ..interpret.frame import Frame
    from ..interpret.interpreter import Interpreter
    from ..ir import Node

NOTHING: Any = object()  # a static value that exists but is not known


class Value:
    """An abstract value; every behaviour defaults to "unknown"."""

    def describe(self) -> str:
        return type(self).__name__.lower()

    def var_getattr(self, tx: Interpreter, name: str, expr: nodes.NodeNG, frame: Frame) -> Value:
        """`value.name`."""
        return UNKNOWN

    def call(self, tx: Interpreter, args: list[Value], kwargs: dict[str, Value], expr: nodes.NodeNG,
             frame: Frame, unknown_rest: bool = False) -> Value:
        """`value(*args, **kwargs)`; `unknown_rest`: a spread we cannot see was passed too."""
        return UNKNOWN

    def call_method(self, tx: Interpreter, name: str, args: list[Value], kwargs: dict[str, Value],
                    expr: nodes.NodeNG, frame: Frame) -> Value:
        """`value.name(*args, **kwargs)`, for the kinds whose attributes are bound methods."""
        return UNKNOWN

    def subscript(self, tx: Interpreter, key: Value, expr: nodes.NodeNG, frame: Frame) -> Value:
        """`value[key]`."""
        return UNKNOWN

    def truth(self, tx: Interpreter, expr: nodes.NodeNG, frame: Frame) -> tuple[bool | None, Node | None]:
        """Python tests the value for truth: (the known outcome or None, the branch node if it breaks)."""
        return None, None

    def iterate(self, tx: Interpreter) -> list[Value] | None:
        """The items of a loop over the value, when dynamo would unroll a known sequence."""
        return None

    def element(self, tx: Interpreter, expr: nodes.NodeNG | None, frame: Frame | None) -> Value:
        """One item of the value, when the items are not known one by one."""
        return UNKNOWN

    def store_attribute(self, tx: Interpreter, name: str, value: Value, target: nodes.NodeNG,
                        frame: Frame) -> None:
        """`self.name = value` on this value; unknown receivers keep nothing."""

    def store_item(self, tx: Interpreter, key: Value, value: Value, target: nodes.NodeNG,
                   frame: Frame) -> None:
        """`self[key] = value` on this value."""

    def joined(self, other: Value) -> Value | None:
        """This value on one path and `other` on the other, after the paths meet, when this kind
        knows what they agree on; None lets `other`'s kind decide (joins.join), else unknown."""
        return None

    def is_none(self) -> bool | None:
        """Is the value None? None when that is not known."""
        return None

    def instance_of(self) -> nodes.ClassDef | None:
        """The project class this value is an instance of (an object, a module of the project)."""
        return None

    def as_arg(self) -> Any:
        """The argument torch.fx would print for this value in a node."""
        return UNKNOWN_ARG

    def signature(self, depth: int) -> Any:
        """A hashable description of the value's kind, for caching calls by argument kinds."""
        return type(self).__name__

    def rebind(self, node: Node) -> Value:
        """This value with its tensors now produced by `node` (a reused call summary)."""
        return self

    def in_graph(self, tx: Interpreter) -> Value:
        """This value, made outside the graph being built, as that graph sees it."""
        return self

    def holds_object(self, depth: int = 0) -> bool:
        """Is a project object among this value's parts, a few containers deep?"""
        return False


class Unknown(Value):
    def __repr__(self) -> str:
        return "Unknown"


UNKNOWN = Unknown()


def signature_of(value: Any, depth: int = 0) -> Any:
    """A hashable description of abstract values (or tuples, lists, dicts of them)."""
    if depth > 4:
        return "..."
    if isinstance(value, Value):
        return value.signature(depth)
    if isinstance(value, (tuple, list)):
        return tuple(signature_of(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, signature_of(v, depth + 1)) for k, v in value.items()))
    if value is None:
        return None
    return type(value).__name__


class Identity:
    """An object as part of a signature, equal only to itself. It keeps the object alive: a
    bare id() in a call summary's key, kept for the whole file, matched a later root's object
    that Python placed where a freed one had been (the graph then depended on memory layout)."""

    __slots__ = ("obj",)

    def __init__(self, obj: object):
        self.obj = obj

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Identity) and other.obj is self.obj

    def __hash__(self) -> int:
        return id(self.obj)


def holds_object(value: Any, depth: int = 0) -> bool:
    """Is a project object among these values (or tuples, lists, dicts of them)?"""
    if isinstance(value, Value):
        return value.holds_object(depth)
    if depth > 3:
        return False
    if isinstance(value, (tuple, list)):
        return any(holds_object(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return any(holds_object(v, depth + 1) for v in value.values())
    return False


def as_args(values: list[Value]) -> tuple:
    return tuple(v.as_arg() for v in values)


def as_kwargs(values: dict[str, Value]) -> dict:
    return {k: v.as_arg() for k, v in values.items()}
