"""What the interpreter calls: functions of the project, bound methods, partials.

Every kind of value hands out bound methods and inlines functions, so these depend on
nothing but the base class.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import rules, tables
from .base import UNKNOWN, Value, as_args, as_kwargs

if TYPE_CHECKING:
    from astroid import nodes

    from ..interpret.frame import Frame
    from ..interpret.interpreter import Interpreter
    from ..ir import Node


@dataclass(eq=False)
class Function(Value):
    """Something the interpreter can inline: a def or lambda, possibly bound to `self`."""

    node: nodes.FunctionDef | nodes.Lambda
    bound: Value | None = None
    closure: Any = None  # the Frame the nested def or lambda was created in
    cls: nodes.ClassDef | None = None  # the class the method was found in (for super())

    def call(self, tx: Interpreter, args: list[Value], kwargs: dict[str, Value], expr: nodes.NodeNG,
             frame: Frame, unknown_rest: bool = False) -> Value:
        return tx.call_function(self, args, kwargs, expr, frame, unknown_rest=unknown_rest)

    def truth(self, tx: Interpreter, expr: nodes.NodeNG, frame: Frame) -> tuple[bool | None, Node | None]:
        return True, None

    def is_none(self) -> bool | None:
        return False

    def joined(self, other: Value) -> Value | None:
        return self if isinstance(other, Function) and self.node is other.node else None

    def signature(self, depth: int) -> Any:
        return ("F", self.node)


@dataclass(eq=False)
class DisabledFunction(Value):
    """`torch.compiler.disable(f)` made in the compiled code: calling it runs `f` eagerly, a
    break whose GB ids moved between releases (tables.DISABLED_WRAPPER_CALL_BREAKS)."""

    function: Function

    def call(self, tx: Interpreter, args: list[Value], kwargs: dict[str, Value], expr: nodes.NodeNG,
             frame: Frame, unknown_rest: bool = False) -> Value:
        moved, version = tables.DISABLED_WRAPPER_CALL_BREAKS, tx.options.torch_version
        call = tx.graph.python_call(self.function.node.name, as_args(args), as_kwargs(kwargs),
                                    meta=tx.meta(expr, frame))
        tx.graph_break(rules.COMPILER_DISABLED_CALL, call, expr, frame, gb_ids=moved.at(version),
                       versions=moved.span(version))
        return UNKNOWN


@dataclass(eq=False)
class BoundMethod(Value):
    """`receiver.name` before the call: a method of a tensor, a module or a Python value."""

    receiver: Value
    name: str

    def call(self, tx: Interpreter, args: list[Value], kwargs: dict[str, Value], expr: nodes.NodeNG,
             frame: Frame, unknown_rest: bool = False) -> Value:
        return self.receiver.call_method(tx, self.name, args, kwargs, expr, frame)


@dataclass(eq=False)
class Partial(Value):
    """`functools.partial(function, *args, **kwargs)`: dynamo inlines the call with the arguments."""

    function: Value
    args: list[Value]
    kwargs: dict[str, Value]

    def call(self, tx: Interpreter, args: list[Value], kwargs: dict[str, Value], expr: nodes.NodeNG,
             frame: Frame, unknown_rest: bool = False) -> Value:
        return self.function.call(tx, [*self.args, *args], {**self.kwargs, **kwargs}, expr, frame, unknown_rest)

    def truth(self, tx: Interpreter, expr: nodes.NodeNG, frame: Frame) -> tuple[bool | None, Node | None]:
        return True, None
