"""torch.distributions' calls into subclasses, which dynamo inlines: a Transform's `__call__`
and `inv` run the subclass's `_call` and `_inverse`, a TransformedDistribution's `log_prob`
and `sample` run its transforms (tables.TRANSFORM_HOOKS, TRANSFORMED_DISTRIBUTION_METHODS). The
linter never reads torch, so a break in a hook is found here, at the call that reached it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .. import tables
from .base import UNKNOWN, Value
from .containers import Seq
from .functions import BoundMethod
from .static import Static
from .tensors import Tensor, tensor_binop, tensor_unary

if TYPE_CHECKING:
    from astroid import nodes

    from ..discover.resolver import Resolver
    from ..interpret.frame import Frame
    from ..interpret.interpreter import Interpreter
    from .objects import Obj


def distributions_base(resolver: Resolver, cls: nodes.ClassDef) -> str | None:
    """The torch.distributions class (a Transform or a TransformedDistribution) among the
    library bases of `cls` and of the classes it derives from."""
    for owner in resolver.mro(cls):
        for binding in resolver.base_classes(owner):
            if binding.kind == "external" and (binding.qname in tables.TRANSFORM_CLASSES
                                               or binding.qname in tables.TRANSFORMED_DISTRIBUTION_CLASSES):
                return binding.qname
    return None


def torch_attribute(tx: Interpreter, cls: nodes.ClassDef, name: str, receiver: Value) -> Value | None:
    """What a torch.distributions base gives an instance of `cls` for `name`, which no class
    of the project or of a followed library defines; None when it is not such an attribute."""
    base = distributions_base(tx.resolver, cls)
    if base in tables.TRANSFORM_CLASSES:
        if name == "inv":
            return InverseTransform(receiver)
        if name in tables.TRANSFORM_HOOKS:
            return Hook(receiver, tables.TRANSFORM_HOOKS[name])
    elif base is not None and name in tables.TRANSFORMED_DISTRIBUTION_METHODS:
        return TransformedMethod(receiver, name)
    return None


def keep_init_arguments(tx: Interpreter, obj: Obj, args: list[Value], kwargs: dict[str, Value],
                        unknown_rest: bool) -> None:
    """An instance of a project class whose `__init__` is torch's TransformedDistribution's:
    it keeps its arguments as `base_dist` and `transforms`."""
    if distributions_base(tx.resolver, obj.cls) in tables.TRANSFORMED_DISTRIBUTION_CLASSES:
        obj.attrs.update(zip(("base_dist", "transforms"), init_arguments(args, kwargs, unknown_rest)))


def init_arguments(args: list[Value], kwargs: dict[str, Value], unknown_rest: bool) -> tuple[Value, Value]:
    """(base_distribution, transforms) of `TransformedDistribution(...)`."""
    if unknown_rest:
        return UNKNOWN, UNKNOWN
    given = [*args[:2], *([UNKNOWN] * (2 - len(args[:2])))]
    return (kwargs.get("base_distribution", given[0]), kwargs.get("transforms", given[1]))


@dataclass(eq=False)
class TransformedDistribution(Value):
    """`torch.distributions.TransformedDistribution(base_distribution, transforms)` itself."""

    base_dist: Value
    transforms: Value

    @classmethod
    def construct(cls, args: list[Value], kwargs: dict[str, Value], unknown_rest: bool) -> TransformedDistribution:
        return cls(*init_arguments(args, kwargs, unknown_rest))

    def var_getattr(self, tx: Interpreter, name: str, expr: nodes.NodeNG, frame: Frame) -> Value:
        if name in ("base_dist", "transforms"):
            return getattr(self, name)
        if name in tables.TRANSFORMED_DISTRIBUTION_METHODS:
            return TransformedMethod(self, name)
        return UNKNOWN


@dataclass(eq=False)
class Hook(Value):
    """`transform.__call__` or `transform._inv_call` of a Transform subclass: torch's method,
    which runs the subclass's hook (`_call`, `_inverse`) on the same argument."""

    receiver: Value
    hook: str

    def call(self, tx: Interpreter, args: list[Value], kwargs: dict[str, Value], expr: nodes.NodeNG,
             frame: Frame, unknown_rest: bool = False) -> Value:
        return self.receiver.var_getattr(tx, self.hook, expr, frame).call(tx, args, kwargs, expr, frame, unknown_rest)


@dataclass(eq=False)
class InverseTransform(Value):
    """`transform.inv`, torch's _InverseTransform: calling it is the transform's `_inv_call`,
    its Jacobian is the transform's with the arguments swapped, its `inv` the transform."""

    transform: Value

    def var_getattr(self, tx: Interpreter, name: str, expr: nodes.NodeNG, frame: Frame) -> Value:
        if name == "inv":
            return self.transform
        return BoundMethod(self, name) if name == "log_abs_det_jacobian" else UNKNOWN

    def call(self, tx: Interpreter, args: list[Value], kwargs: dict[str, Value], expr: nodes.NodeNG,
             frame: Frame, unknown_rest: bool = False) -> Value:
        inverse = self.transform.var_getattr(tx, "_inv_call", expr, frame)
        return inverse.call(tx, args, kwargs, expr, frame, unknown_rest)

    def call_method(self, tx: Interpreter, name: str, args: list[Value], kwargs: dict[str, Value],
                    expr: nodes.NodeNG, frame: Frame) -> Value:
        if len(args) != 2:
            return UNKNOWN
        jacobian = self.transform.var_getattr(tx, "log_abs_det_jacobian", expr, frame)
        return negated(tx, jacobian.call(tx, [args[1], args[0]], {}, expr, frame), expr, frame)


@dataclass(eq=False)
class TransformedMethod(Value):
    """`log_prob`, `sample` or `rsample` of a TransformedDistribution: torch's method, which
    runs the distribution's transforms and its base distribution's method."""

    receiver: Value
    name: str

    def call(self, tx: Interpreter, args: list[Value], kwargs: dict[str, Value], expr: nodes.NodeNG,
             frame: Frame, unknown_rest: bool = False) -> Value:
        base = self.receiver.var_getattr(tx, "base_dist", expr, frame)
        transforms = transform_list(tx, self.receiver.var_getattr(tx, "transforms", expr, frame), expr, frame)
        if tables.TRANSFORMED_DISTRIBUTION_METHODS[self.name] == "forward":
            x = base.var_getattr(tx, self.name, expr, frame).call(tx, args, kwargs, expr, frame, unknown_rest)
            x = as_tensor(x)  # a distribution's sample is a tensor (torch's own is not read)
            for transform in transforms:
                x = transform.call(tx, [x], {}, expr, frame)
            return x
        value = args[0] if args else kwargs.get("value", UNKNOWN)
        return self.log_prob(tx, base, transforms, value, expr, frame)

    def log_prob(self, tx: Interpreter, base: Value, transforms: list[Value], value: Value,
                 expr: nodes.NodeNG, frame: Frame) -> Value:
        """`0.0 - jacobian - ... + base.log_prob(x)`, as torch computes it: the base's
        log-density of the inverted value, less each transform's Jacobian."""
        result: Value = Static(0.0)
        y = value
        for transform in reversed(transforms):
            x = transform.var_getattr(tx, "inv", expr, frame).call(tx, [y], {}, expr, frame)
            jacobian = transform.var_getattr(tx, "log_abs_det_jacobian", expr, frame)
            result = tensor_binop(tx, "-", result, as_tensor(jacobian.call(tx, [x, y], {}, expr, frame)), expr, frame)
            y = x
        density = base.var_getattr(tx, "log_prob", expr, frame).call(tx, [y], {}, expr, frame)
        return tensor_binop(tx, "+", result, as_tensor(density), expr, frame)


def transform_list(tx: Interpreter, transforms: Value, expr: nodes.NodeNG, frame: Frame) -> list[Value]:
    """The transforms a TransformedDistribution keeps: a list, or one transform (torch's
    `__init__` makes it a list of one); a list of unknown length as its one kind of item."""
    if isinstance(transforms, Seq):
        items = transforms.iterate(tx)
        return items if items is not None else [transforms.element(tx, expr, frame)]
    return [transforms] if is_transform(tx, transforms) else []


def is_transform(tx: Interpreter, value: Value) -> bool:
    if isinstance(value, InverseTransform):
        return True
    cls = value.instance_of()
    return cls is not None and distributions_base(tx.resolver, cls) in tables.TRANSFORM_CLASSES


def negated(tx: Interpreter, value: Value, expr: nodes.NodeNG, frame: Frame) -> Value:
    return tensor_unary(tx, "-", as_tensor(value), expr, frame)


def as_tensor(value: Value) -> Tensor:
    """A value torch.distributions documents as a tensor (a log-density, a Jacobian, a
    sample), known or not."""
    return value if isinstance(value, Tensor) else Tensor(None)
