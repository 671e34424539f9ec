"""Classes of the project and their instances (objects, the project's own modules): what dynamo
constructs, inlines and tracks."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from astroid import nodes

from .. import rules, tables
from ..discover.parse import attributes_set_on_self, nodes_of_class
from .base import UNKNOWN, Value, as_args, as_kwargs, holds_object, signature_of
from .containers import Dict, assume
from .distributions import Hook, distributions_base, keep_init_arguments, torch_attribute
from .flags import ChosenByFlag
from .functions import BoundMethod, Function
from .joins import join, join_attributes
from .modules import UNNAMED_SUBMODULES, LeafModule, Module, OpaqueModule, join_path, torch_base
from .static import EnumMember, Static, setting
from .tensors import Tensor, is_definite_tensor

if TYPE_CHECKING:
    from ..interpret.frame import Frame
    from ..interpret.interpreter import Interpreter
    from ..ir import Node


@dataclass(eq=False)
class ClassRef(Value):
    """A project class (not called yet)."""

    node: nodes.ClassDef

    def is_none(self) -> bool | None:
        return False

    def var_getattr(self, tx: Interpreter, name: str, expr: nodes.NodeNG, frame: Frame) -> Value:
        return class_attribute(tx, self.node, name, None, frame)

    def call(self, tx: Interpreter, args: list[Value], kwargs: dict[str, Value], expr: nodes.NodeNG,
             frame: Frame, unknown_rest: bool = False) -> Value:
        """Construct: a module is built lazily; a plain object's `__init__` runs here, as dynamo traces it."""
        cls = self.node
        if tx.resolver.is_module_class(cls):
            return UserModule("", cls=cls, ctor_args=None if unknown_rest else (args, kwargs))
        if tx.resolver.is_dataclass(cls):
            return construct_dataclass(tx, cls, args, kwargs, expr, frame, unknown_rest)
        if tx.resolver.is_output_record(cls):
            defaults = {name: None if default is None else tx.eval_static_expr(default, frame)
                        for name, default in dataclass_fields(tx.resolver, cls).items()}
            return OutputRecord.construct(defaults, args, kwargs, unknown_rest)
        if tx.resolver.is_dict_subclass(cls):
            return construct_dict_subclass(tx, cls, args, kwargs, unknown_rest)
        if tx.resolver.is_plain_class(cls) or distributions_base(tx.resolver, cls) is not None:
            return self.construct_object(tx, args, kwargs, expr, frame, unknown_rest)
        return UNKNOWN

    def construct_object(self, tx: Interpreter, args: list[Value], kwargs: dict[str, Value], expr: nodes.NodeNG,
                         frame: Frame, unknown_rest: bool) -> Value:
        """An object whose `__init__` runs here; a torch.distributions subclass without one of
        its own keeps the arguments torch's `__init__` stores."""
        cls = self.node
        obj = tx.new_object(cls)
        init = tx.resolver.find_method(cls, "__init__")
        if init is None:
            keep_init_arguments(tx, obj, args, kwargs, unknown_rest)
            return obj
        function, owner = init
        breaks_before = tx.breaks.reported
        ran = tx.call_function(Function(function, bound=obj, cls=owner), args, kwargs, expr,
                               frame, unknown_rest=unknown_rest)
        if tx.breaks.reported > breaks_before:
            metaclass_call_reruns(tx, cls, expr, frame)
        if ran is UNKNOWN:
            return UNKNOWN  # not inlined (recursion, depth): its attributes are not known
        return obj

    def truth(self, tx: Interpreter, expr: nodes.NodeNG, frame: Frame) -> tuple[bool | None, Node | None]:
        return True, None

    def signature(self, depth: int) -> Any:
        return ("F", self.node)


def metaclass_call_reruns(tx: Interpreter, cls: nodes.ClassDef, expr: nodes.NodeNG, frame: Frame) -> None:
    """The construction broke, so the statement building `cls` reruns eagerly and dynamo
    compiles its metaclass's `__call__` as a frame of its own. There `super().__call__(...)`
    is `type.__call__`, a slot wrapper, which dynamo cannot call: GB0006 (measured,
    registry_metaclass.py; inlined in a construction that does not break, it compiles)."""
    found = _metaclass_call(tx.resolver, cls)
    if found is None:
        return
    function, owner = found
    super_call = next((call for call in nodes_of_class(function, nodes.Call) if _is_super_call(call)), None)
    if super_call is None:
        return
    own_frame = frame.callee(function, tx.resolver.source_of(function), expr, cls=owner)
    TypeCall().call(tx, [], {}, super_call, own_frame)


def _metaclass_call(resolver, cls: nodes.ClassDef) -> tuple[nodes.FunctionDef, nodes.ClassDef] | None:
    """The project metaclass `__call__` (and its class) that builds `cls`'s instances, when
    `super()` in it reaches `type.__call__`: the metaclass's other bases are `type` or ABCMeta."""
    found = metaclass_method(resolver, cls, "__call__")
    return found if found is not None and reaches_type_call(resolver, found[1]) else None


def metaclass_method(resolver, cls: nodes.ClassDef, name: str) -> tuple[nodes.FunctionDef, nodes.ClassDef] | None:
    """The method `name` (and its class) of the project metaclass `cls` is made by, if it has one."""
    for owner in resolver.mro(cls):
        declared = owner._metaclass  # astroid keeps `metaclass=` out of `keywords`
        if declared is None:
            continue
        binding = resolver.expr_binding(declared, resolver.source_of(owner))
        if binding is None or binding.kind != "class":
            return None
        return resolver.find_method(binding.node, name)
    return None


def reaches_type_call(resolver, metaclass: nodes.ClassDef) -> bool:
    """Is `super().__call__` in `metaclass` `type.__call__`? Its bases are project classes with
    no `__call__` of their own, `type` or ABCMeta (another Python `__call__` is inlined)."""
    if resolver.find_method(metaclass, "__call__", after=metaclass) is not None:
        return False
    bases = [b for meta in resolver.mro(metaclass) for b in resolver.base_classes(meta)]
    return all(b.kind == "class" or b.kind == "external" and b.qname in TYPE_CALL_METACLASSES for b in bases) \
        and any(b.kind == "external" for b in bases)


# Library metaclasses whose instances are built by `type.__call__` itself.
TYPE_CALL_METACLASSES = frozenset({"type", "abc.ABCMeta"})


def _is_super_call(call: nodes.Call) -> bool:
    """`super().__call__(...)`"""
    func = call.func
    return (isinstance(func, nodes.Attribute) and func.attrname == "__call__" and isinstance(func.expr, nodes.Call)
            and isinstance(func.expr.func, nodes.Name) and func.expr.func.name == "super")


def construct_dataclass(tx: Interpreter, cls: nodes.ClassDef, args: list[Value], kwargs: dict[str, Value],
                        expr: nodes.NodeNG, frame: Frame, unknown_rest: bool) -> Value:
    """`Config(layers=3)` of a `@dataclass`: each field from the arguments or its default, as the
    generated `__init__` sets it, then `__post_init__`. Configuration objects written this way
    are what `range(config.num_layers)` reads."""
    obj = tx.new_object(cls)
    fields = dataclass_fields(tx.resolver, cls)
    given = dict(zip(fields, args))
    if len(args) > len(fields) or any(name in given or name not in fields for name in kwargs):
        return UNKNOWN  # the call would raise TypeError
    given.update(kwargs)
    for name, default in fields.items():
        if name in given:
            value = given[name]
        elif unknown_rest or default is None:
            value = UNKNOWN
        else:  # the configuration a model built with defaults has
            value = setting(assume(tx.eval_static_expr(default, frame)), name)
        obj.store_attribute(tx, name, value, expr, frame)
    post_init = tx.resolver.find_method(cls, "__post_init__")
    if post_init is not None:
        function, owner = post_init
        if tx.call_function(Function(function, bound=obj, cls=owner), [], {}, expr, frame) is UNKNOWN:
            return UNKNOWN
    return obj


@dataclass(eq=False)
class OutputRecord(Value):
    """An instance of a `@dataclass` over transformers' ModelOutput (diffusers' BaseOutput):
    the fields as attributes; its base's `__post_init__` also puts each field that is not None
    in the dict, in declaration order. Dynamo inlines all of it (measured: model_output_index.py),
    so `out[0]` is the first field that is not None and `out["logits"]` the field."""

    fields: dict[str, Value]

    @staticmethod
    def construct(defaults: dict[str, Value | None], args: list[Value], kwargs: dict[str, Value],
                  unknown_rest: bool) -> Value:
        """`Seq2SeqModelOutput(last_hidden_state=h, ...)`, given each field's default (None: none)."""
        given = dict(zip(defaults, args))
        if len(args) > len(defaults) or any(name in given or name not in defaults for name in kwargs):
            return UNKNOWN  # the call would raise TypeError
        given.update(kwargs)
        return OutputRecord({name: given[name] if name in given else UNKNOWN if unknown_rest or default is None
                             else default for name, default in defaults.items()})

    def describe(self) -> str:
        return "model output"

    def var_getattr(self, tx: Interpreter, name: str, expr: nodes.NodeNG, frame: Frame) -> Value:
        return self.fields.get(name, UNKNOWN)

    def subscript(self, tx: Interpreter, key: Value, expr: nodes.NodeNG, frame: Frame) -> Value:
        """`out[i]` is `to_tuple()[i]`: known when the None-ness of every field before it is,
        and the first field is a tensor (else `__post_init__` may unpack it into the dict)."""
        if not (isinstance(key, Static) and key.known):
            return UNKNOWN
        if isinstance(key.value, str):
            return self.fields.get(key.value, UNKNOWN)
        first = next(iter(self.fields.values()), UNKNOWN)
        if type(key.value) is not int or not is_definite_tensor(first):
            return UNKNOWN
        present, all_known = [], True
        for value in self.fields.values():
            is_none = value.is_none()
            if is_none is None:
                all_known = False
                break
            if not is_none:
                present.append(value)
        if 0 <= key.value < len(present) or all_known and -len(present) <= key.value < 0:
            return present[key.value]
        return UNKNOWN

    def store_attribute(self, tx: Interpreter, name: str, value: Value, target: nodes.NodeNG,
                        frame: Frame) -> None:
        tx.heap.record(self)
        old = self.fields.get(name)
        self.fields[name] = join(old, value) if frame.resume.short_circuit and old is not None else value

    def state(self) -> dict:
        return dict(self.fields)

    def restore(self, state: dict) -> None:
        self.fields = dict(state)

    def join_states(self, a: dict, b: dict) -> dict:
        return join_attributes(a, b)

    def in_graph(self, tx: Interpreter) -> Value:
        fields = {name: value.in_graph(tx) for name, value in self.fields.items()}
        return self if all(fields[name] is value for name, value in self.fields.items()) else OutputRecord(fields)

    def rebind(self, node: Node) -> Value:
        return OutputRecord({name: value.rebind(node) for name, value in self.fields.items()})

    def holds_object(self, depth: int = 0) -> bool:
        return depth <= 3 and any(holds_object(value, depth + 1) for value in self.fields.values())

    def signature(self, depth: int) -> Any:
        return ("R", signature_of(self.fields, depth + 1))


def construct_dict_subclass(tx: Interpreter, cls: nodes.ClassDef, args: list[Value], kwargs: dict[str, Value],
                            unknown_rest: bool) -> Value:
    """`ClassInstantier(ACT2CLS)` of a dict subclass: an object holding a copy of the dict."""
    source = args[0] if args else Dict({})
    if len(args) > 1 or kwargs or unknown_rest or not isinstance(source, Dict):
        return UNKNOWN
    obj = tx.new_object(cls)
    obj.mapping = Dict(dict(source.items), source.complete, source.maybe)
    return obj


def dataclass_fields(resolver, cls: nodes.ClassDef) -> dict[str, nodes.NodeNG | None]:
    """The fields of a dataclass in `__init__` order (bases first; a redefined field keeps its
    place), each with its default
    expression: None when it has none, or when `field(...)` gives no plain `default=`."""
    fields: dict[str, nodes.NodeNG | None] = {}
    for owner in reversed(resolver.mro(cls)):
        for statement in owner.body:
            if not (isinstance(statement, nodes.AnnAssign) and isinstance(statement.target, nodes.AssignName)):
                continue
            if "ClassVar" in statement.annotation.as_string():
                continue
            default = statement.value
            if isinstance(default, nodes.Call) and (default.func.as_string() in ("field", "dataclasses.field")):
                default = next((k.value for k in default.keywords or () if k.arg == "default"), None)
            fields[statement.target.name] = default
    return fields


@dataclass(eq=False)
class TypeCall(Value):
    """`super().__call__` in a metaclass: `type.__call__`, a slot wrapper dynamo cannot call
    through super() (GB0006, measured: registry_metaclass.py, pyro's DistributionMeta)."""

    def call(self, tx: Interpreter, args: list[Value], kwargs: dict[str, Value], expr: nodes.NodeNG,
             frame: Frame, unknown_rest: bool = False) -> Value:
        node = tx.graph.python_call("type.__call__", meta=tx.meta(expr, frame))
        tx.graph_break(rules.METACLASS_CALL_RERUN, node, expr, frame)
        return UNKNOWN


@dataclass(eq=False)
class Super(Value):
    """`super()` in a method: attributes are looked up after `cls` in the receiver's MRO."""

    receiver: Value
    cls: nodes.ClassDef | None

    def var_getattr(self, tx: Interpreter, name: str, expr: nodes.NodeNG, frame: Frame) -> Value:
        if name == "__call__" and self.cls is not None and reaches_type_call(tx.resolver, self.cls):
            return TypeCall()
        receiver = self.receiver
        cls = receiver.cls if isinstance(receiver, (Module, Obj)) else None
        if cls is None or self.cls is None:
            return UNKNOWN
        value = class_attribute(tx, cls, name, receiver, frame, after=self.cls)
        if value is UNKNOWN and isinstance(receiver, Obj) and receiver.mapping is not None:
            return BoundMethod(receiver.mapping, name)  # super().__getitem__(key) of a dict subclass
        if value is UNKNOWN and name in ("forward", "__call__") and isinstance(receiver, Module):
            return BoundMethod(receiver.converted(LeafModule, qname=torch_base(tx.resolver, cls)), "forward")
        if value is UNKNOWN and name == "__init__" and isinstance(receiver, Module):
            stored = unread_base_init_attributes(tx, cls, self.cls)
            if stored:
                return UnreadBaseInit(receiver, stored)
        return value


def unread_base_init_attributes(tx: Interpreter, cls: nodes.ClassDef, after: nodes.ClassDef) -> tuple[str, ...]:
    """What the `__init__` of a library base we do not read, reached by `super()` from `after`,
    stores from its first parameters (tables.UNREAD_BASE_INIT_ATTRIBUTES)."""
    mro = tx.resolver.mro(cls)
    for owner in mro[mro.index(after):] if after in mro else mro:
        for binding in tx.resolver.base_classes(owner):
            stored = tables.UNREAD_BASE_INIT_ATTRIBUTES.get(binding.qname.rsplit(".", 1)[-1]) \
                if binding.kind == "external" else None
            if stored:
                return stored
    return ()


@dataclass(eq=False)
class UnreadBaseInit(Value):
    """`super().__init__(config)` into such a base: its arguments become the named attributes;
    nothing else it sets is known."""

    receiver: Value
    names: tuple[str, ...]

    def call(self, tx: Interpreter, args: list[Value], kwargs: dict[str, Value], expr: nodes.NodeNG,
             frame: Frame, unknown_rest: bool = False) -> Value:
        given = {**dict(zip(self.names, args)), **{k: v for k, v in kwargs.items() if k in self.names}}
        for name, value in given.items():
            tx.store_module_attribute(self.receiver, name, value)
        return Static(None)


@dataclass(eq=False)
class Obj(Value):
    """An instance of a project class that is not an nn.Module (a scheduler, a feature
    container): dynamo traces its `__init__` and methods and tracks its attributes, so we do."""

    cls: nodes.ClassDef
    attrs: dict[str, Value] = field(default_factory=dict)
    mapping: Any = None  # containers.Dict: the items of an instance of a dict subclass

    def instance_of(self) -> nodes.ClassDef | None:
        return self.cls

    def describe(self) -> str:
        return f"{self.cls.name} object"

    def var_getattr(self, tx: Interpreter, name: str, expr: nodes.NodeNG, frame: Frame) -> Value:
        if name in self.attrs:
            return self.attrs[name].in_graph(tx)
        value = class_attribute(tx, self.cls, name, self, frame, site=expr)
        if value is UNKNOWN and self.mapping is not None:
            return BoundMethod(self.mapping, name)  # a dict method the class keeps
        return value

    def subscript(self, tx: Interpreter, key: Value, expr: nodes.NodeNG, frame: Frame) -> Value:
        """`obj[key]`: the class's `__getitem__`, or the dict's own for a dict subclass."""
        method = class_attribute(tx, self.cls, "__getitem__", self, frame)
        if isinstance(method, Function):
            return method.call(tx, [key], {}, expr, frame)
        return self.mapping.subscript(tx, key, expr, frame) if self.mapping is not None else UNKNOWN

    def store_item(self, tx: Interpreter, key: Value, value: Value, target: nodes.NodeNG,
                   frame: Frame) -> None:
        """`obj[key] = value`: the class's `__setitem__`, or into a dict subclass's dict."""
        method = class_attribute(tx, self.cls, "__setitem__", self, frame)
        if isinstance(method, Function):
            method.call(tx, [key, value], {}, target, frame)
        elif self.mapping is not None:
            self.mapping.store_item(tx, key, value, target, frame)

    def call(self, tx: Interpreter, args: list[Value], kwargs: dict[str, Value], expr: nodes.NodeNG,
             frame: Frame, unknown_rest: bool = False) -> Value:
        method = class_attribute(tx, self.cls, "__call__", self, frame)
        if isinstance(method, (Function, Hook)):
            return method.call(tx, args, kwargs, expr, frame, unknown_rest)
        return UNKNOWN

    def store_attribute(self, tx: Interpreter, name: str, value: Value, target: nodes.NodeNG,
                        frame: Frame) -> None:
        old = self.attrs.get(name)
        if frame.resume.short_circuit:
            value = join(old, value) if old is not None else UNKNOWN  # set on some calls
        tx.heap.record(self)
        self.attrs[name] = value

    def state(self) -> dict:
        return dict(self.attrs)

    def restore(self, state: dict) -> None:
        self.attrs = dict(state)

    def join_states(self, a: dict, b: dict) -> dict:
        return join_attributes(a, b)

    def in_graph(self, tx: Interpreter) -> Value:
        """An object made elsewhere (by a module's `__init__`): this graph works on its own copy,
        in which what other methods reassign (scheduler.set_timesteps() before forward) is not
        a fact."""
        objects = tx.heap.objects
        copy = objects.get(id(self))
        if copy is None:
            reassigned = reassigned_attributes(tx, self.cls)
            copy = objects[id(self)] = Obj(self.cls, {
                name: item if name not in reassigned or isinstance(item, Module)
                else Static() if isinstance(item, Static) else UNKNOWN
                for name, item in self.attrs.items()}, self.mapping and self.mapping.in_graph(tx))
            objects[id(copy)] = copy
        return copy

    def holds_object(self, depth: int = 0) -> bool:
        return True

    def signature(self, depth: int) -> Any:
        """The class and the attributes' values: modules built from two configs of one class
        with other values are other modules (the key of `__init__`'s cached attributes)."""
        return ("O", self.cls, signature_of(self.attrs, depth + 1), signature_of(self.mapping, depth + 1))


@dataclass(eq=False)
class UserModule(Module):
    """A module class of the project (or of a library the analysis reads): its forward is inlined."""

    def instance_of(self) -> nodes.ClassDef | None:
        return self.cls

    def own_attribute(self, tx: Interpreter, name: str, expr: nodes.NodeNG | None, frame: Frame) -> Value:
        attrs = tx.module_attrs(self)
        if name in attrs:
            value = attrs[name]
            if isinstance(value, ChosenByFlag):
                value = value.chosen(tx, self)
            if isinstance(value, Tensor):
                return tx.get_attr(join_path(self.path, name), expr, frame, needs_grad=not value.buffer)
            if name in reassigned_attributes(tx, self.cls) and not isinstance(value, Module):
                return Static() if isinstance(value, Static) else UNKNOWN
            return value.in_graph(tx)
        found = class_attribute(tx, self.cls, name, self, frame, site=expr) if self.cls is not None else UNKNOWN
        if found is UNKNOWN and UNNAMED_SUBMODULES in attrs:
            return OpaqueModule(join_path(self.path, name))  # one of the submodules added by unknown names
        return found

    def call(self, tx: Interpreter, args: list[Value], kwargs: dict[str, Value], expr: nodes.NodeNG,
             frame: Frame, unknown_rest: bool = False) -> Value:
        if self.cls is not None and tx.resolver.class_is_opaque(self.cls):
            tx.graph.call_module(self.path or self.cls.name, as_args(args), as_kwargs(kwargs),
                                 meta=dict(tx.meta(expr, frame), opaque="its class is not analysed"))
            return UNKNOWN
        override = tx.resolver.find_method(self.cls, "__call__") if self.cls else None
        if override is not None:  # nn.Module.__call__ replaced: what runs is the override
            function, owner = override
            return tx.call_function(Function(function, bound=self, cls=owner), args, kwargs, expr, frame,
                                    unknown_rest=unknown_rest)
        forward = tx.resolver.find_method(self.cls, "forward") if self.cls else None
        if forward is None:
            hook = torch_attribute(tx, self.cls, "__call__", self) if self.cls else None
            if hook is not None:  # a torch.distributions Transform: its `_call`
                return hook.call(tx, args, kwargs, expr, frame, unknown_rest)
            base = torch_base(tx.resolver, self.cls) if self.cls else ""
            if base:
                return self.converted(LeafModule, qname=base).call(tx, args, kwargs, expr, frame)
            return UNKNOWN
        function, owner = forward
        return tx.call_function(Function(function, bound=self, cls=owner), args, kwargs, expr, frame,
                                unknown_rest=unknown_rest)


def class_attribute(tx: Interpreter, cls: nodes.ClassDef, name: str, receiver: Value | None, frame: Frame,
                    after: nodes.ClassDef | None = None, site: nodes.NodeNG | None = None) -> Value:
    """A method, property value or class attribute of `cls` (after `after` in its MRO, for
    super()); `site` is the attribute expression, where a property runs."""
    method = tx.resolver.find_method(cls, name, after=after)
    if method is not None:
        function, owner = method
        if tx.resolver.is_staticmethod(function):
            return Function(function, cls=owner)
        if receiver is None and tx.resolver.is_classmethod(function):
            # `cls` is the class it is looked up on, not the one defining it: gpytorch's
            # `settings.debug.on()` reads debug's `_default`, not its base's.
            return Function(function, bound=ClassRef(cls), cls=owner)
        if tx.resolver.is_property(function) and receiver is not None:
            return tx.call_function(Function(function, bound=receiver, cls=owner), [], {},
                                    site or function, frame, in_property=True)
        return Function(function, bound=receiver, cls=owner)
    expr = tx.resolver.find_class_attribute(cls, name)
    if expr is not None:
        if receiver is None and tx.resolver.is_enum_class(cls):
            return Static(EnumMember(cls.qname(), name))
        return tx.eval_static_expr(expr, frame)
    inherited = torch_attribute(tx, cls, name, receiver) if receiver is not None else None
    if inherited is not None:
        return inherited
    if receiver is not None and name in tables.MODULE_METHODS:
        return BoundMethod(receiver, name)
    return UNKNOWN


def reassigned_attributes(tx: Interpreter, cls: nodes.ClassDef | None) -> frozenset[str]:
    """Attributes the class's methods assign outside `__init__`: their `__init__` value is not a fact."""
    if cls is None:
        return frozenset()
    cached = tx.state.mutated_attrs.get(cls)
    if cached is None:
        names = set()
        home = cls.root()
        for owner in tx.resolver.mro(cls):
            if owner.root() is not home:
                continue  # library base classes rarely reassign what subclasses read
            for method in owner.mymethods():
                if method.name == "__init__":
                    continue
                names |= attributes_set_on_self(method)
        cached = tx.state.mutated_attrs[cls] = frozenset(names)
    return cached
