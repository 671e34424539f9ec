"""Abstract values: what the builder knows about each Python value in a compiled function.

The one question behind every diagnostic is "tensor, static Python value, or unknown?".
Dynamo specialises on static values (shapes under static shapes, config, `self.training`),
traces tensors into the graph, and breaks where Python needs a tensor's data. Only
definite facts produce diagnostics: `Unknown` never does.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from astroid import nodes

from .ir import Node

NOTHING: Any = object()  # a static value that exists but is not known


class Value:
    """Base of all abstract values."""

    def describe(self) -> str:
        return type(self).__name__.lower()


class Unknown(Value):
    def __repr__(self) -> str:
        return "Unknown"


UNKNOWN = Unknown()


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

    def describe(self) -> str:
        return "tensor"


@dataclass(eq=False)
class Static(Value):
    """A Python value dynamo specialises on; `value` is NOTHING when it is not known here."""

    value: Any = NOTHING
    # The value differs between ordinary runs (`self.training`), unlike configuration: a
    # break under it is not "conditional" (see build.py's short-circuit handling).
    varies: bool = False
    # Known only as a default: a constructor argument's default value, or what is computed
    # from one. The model may be built with other values.
    assumed: bool = False
    # The node torch.fx would record for this value (x.shape, x.size(0), arithmetic on them):
    # dynamo specialises on it, fx proxies it; the graph mirrors fx.
    node: Node | None = None

    @property
    def known(self) -> bool:
        return self.value is not NOTHING

    def describe(self) -> str:
        return f"static {self.value!r}" if self.known else "static"


@dataclass(eq=False)
class Seq(Value):
    """A tuple or list: `items` when known; `elem` alone when only the element kind is."""

    items: list[Value] | None
    elem: Value = UNKNOWN
    is_list: bool = False

    def element(self) -> Value:
        if self.items is None:
            return self.elem
        return join_all(self.items) if self.items else UNKNOWN


@dataclass(eq=False)
class Dict(Value):
    items: dict[Any, Value] = field(default_factory=dict)
    complete: bool = True


@dataclass(eq=False)
class Module(Value):
    """An nn.Module instance.

    kind: "leaf" (a torch.nn layer: call_module), "user" (a project class: inline its
    forward), "container" (Sequential/ModuleList/ModuleDict with `items`).
    `attrs` are filled lazily by interpreting the class's `__init__`.
    """

    kind: str
    path: str
    qname: str = ""
    cls: nodes.ClassDef | None = None
    items: Any = None  # list[Value] | dict[str, Value] | None (containers)
    ctor_args: tuple[list[Value], dict[str, Value]] | None = None
    attrs: dict[str, Value] | None = None

    def describe(self) -> str:
        return f"module {self.path or self.qname}"


@dataclass(eq=False)
class NdArray(Value):
    """A numpy array made in the compiled code: dynamo traces numpy as tensor operations, so
    converting the array to Python objects (`.tolist()`) needs its data, as for a tensor."""


@dataclass(eq=False)
class Obj(Value):
    """An instance of a project class that is not an nn.Module (a scheduler, a feature
    container): dynamo traces its `__init__` and methods and tracks its attributes, so we do."""

    cls: nodes.ClassDef
    attrs: dict[str, Value] = field(default_factory=dict)

    def describe(self) -> str:
        return f"{self.cls.name} object"


@dataclass(eq=False)
class Function(Value):
    """Something the builder can inline: a def or lambda, possibly bound to `self`."""

    node: nodes.FunctionDef | nodes.Lambda
    bound: Value | None = None
    closure: Any = None  # the Frame the nested def or lambda was created in
    cls: nodes.ClassDef | None = None  # the class the method was found in (for super())


@dataclass(eq=False)
class External(Value):
    """A name from outside the project, resolved by import statements: `torch.nonzero`."""

    qname: str


@dataclass(eq=False)
class Instance(Value):
    """An object of a known external type, e.g. a `logging.Logger`."""

    qname: str


@dataclass(eq=False)
class ClassRef(Value):
    """A project class (not called yet)."""

    node: nodes.ClassDef


@dataclass(eq=False)
class BoundMethod(Value):
    """`receiver.name` before the call: a tensor method or a method of a Python value."""

    receiver: Value
    name: str


@dataclass(eq=False)
class Super(Value):
    receiver: Value
    cls: nodes.ClassDef | None


@dataclass(frozen=True)
class EnumMember:
    """A member of a project Enum, compared by class and name as Python compares members."""

    enum: str
    name: str

    def __repr__(self) -> str:
        return f"{self.enum.rsplit('.', 1)[-1]}.{self.name}"


def derived(value: Any, *operands: Value) -> Static:
    """A static value computed from `operands`: assumed if any of them is."""
    return Static(value, assumed=any(isinstance(o, Static) and o.assumed for o in operands))


def is_definite_tensor(value: Value) -> bool:
    return isinstance(value, Tensor) and not value.weak


def join(a: Value, b: Value) -> Value:
    """The value of a variable after two paths merge."""
    if a is b:
        return a
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        return Tensor(b.node, weak=a.weak or b.weak, is_bool=a.is_bool and b.is_bool,
                      scalar=a.scalar and b.scalar)
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
    if isinstance(a, Module) and isinstance(b, Module) and a.path == b.path:
        return a
    if isinstance(a, Function) and isinstance(b, Function) and a.node is b.node:
        return a
    return UNKNOWN


def join_all(values: list[Value]) -> Value:
    result = values[0]
    for value in values[1:]:
        result = join(result, value)
    return result
