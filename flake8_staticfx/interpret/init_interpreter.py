"""Interpreting a module's `__init__`: what its attributes are, not what dynamo compiles."""
from __future__ import annotations

from typing import Any, Callable

from astroid import nodes

from .frame import Frame
from .inline import bind_arguments
from .interpreter import Interpreter
from ..ir import Graph, Node
from ..rules import Rule
from ..values import (
    UNKNOWN,
    ClassRef,
    Dict,
    External,
    Function,
    Module,
    NdArray,
    Obj,
    Seq,
    Static,
    UserModule,
    Value,
    assume,
    join,
    join_path,
    setting,
    signature_of,
    with_path,
)
from ..values.flags import chosen_by

# What constructing an object runs: `__init__`, and the `__post_init__` a dataclass's calls.
CONSTRUCTION_METHODS = frozenset({"__init__", "__post_init__"})


def init_attributes(tx: Interpreter, module: UserModule) -> dict[str, Value]:
    """The module's attributes, by interpreting its class's `__init__` (once per instance, and
    once per file for the same class and argument kinds)."""
    if module.attrs is not None:
        return module.attrs
    module.attrs = {}
    if module.cls is None:
        return module.attrs
    init = tx.resolver.find_method(module.cls, "__init__")
    if init is None:
        return module.attrs
    function, owner = init
    key = (module.cls, signature_of(module.ctor_args), None if tx.state.reuse_inlined else module.path)
    cached = tx.state.init_attrs.get(key)
    if cached is not None:
        module.attrs = cached
        return cached
    tx.state.init_attrs[key] = module.attrs
    builder = InitInterpreter(tx.resolver, tx.options, tx.state, Graph("__init__", ""))
    if module.ctor_args is not None:
        args, kwargs = module.ctor_args
        env = bind_arguments(function, module, args, kwargs, lambda e: builder.eval_static_expr(e, None))
    else:
        env = static_params(function, lambda e: assume(builder.eval_static_expr(e, None)))
        if function.args.args:
            env[function.args.args[0].name] = module
    frame = Frame(function, tx.resolver.source_of(function), env, cls=owner)
    try:
        builder.run_body(frame)
    except RecursionError:
        pass
    return module.attrs


def static_params(function: nodes.FunctionDef,
                  default: Callable[[nodes.NodeNG], Value]) -> dict[str, Value]:
    """`__init__` parameters of a module built we do not know how: static values, known
    (as assumed) where a default gives one."""
    spec = function.args
    env: dict[str, Value] = {}
    positional = [*spec.posonlyargs, *spec.args]
    defaults = dict(zip([p.name for p in positional[len(positional) - len(spec.defaults or []):]],
                        spec.defaults or []))
    defaults.update({p.name: d for p, d in zip(spec.kwonlyargs, spec.kw_defaults or []) if d is not None})
    for param in [*positional, *spec.kwonlyargs]:
        expr = defaults.get(param.name)
        value = setting(default(expr), param.name) if expr is not None else Static()
        # A function, class or torch layer given as a default (`act=F.gelu`, `block=BasicBlock`,
        # `norm_layer=nn.LayerNorm`) is what a model built with defaults calls; a project
        # object (`config=AttentionConfig()`) is the configuration it is built with.
        env[param.name] = value if isinstance(value, (Static, Seq, Dict, Function, ClassRef, External, Obj)) \
            else Static()
    if spec.vararg:
        env[spec.vararg] = Seq(None)
    if spec.kwarg:
        env[spec.kwarg] = Dict({}, complete=False)
    return env


class InitInterpreter(Interpreter):
    """Runs `__init__` to learn a module's submodules, tensors and settings.

    Nothing here is compiled: no break is raised, objects made here are not the graph's own,
    the tensors of static expressions are kept (they become the module's buffers), and only
    what builds the attributes is followed.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._attributes: dict[int, ModuleAttributes] = {}

    def graph_break(self, rule: Rule, node: Node, expr: nodes.NodeNG, frame: Frame, **details: object) -> None:
        return None

    def follows(self, function: nodes.FunctionDef | nodes.Lambda, frame: Frame, receiver: Value | None) -> bool:
        """Only the `__init__` chain (a dataclass's `__post_init__` included), helpers of the
        same file (`self._make_layer(...)`), functions that are no methods, of any file (timm's
        `make_blocks`, `get_act_layer`, `create_classifier` build or choose the layers), a
        subclass's override of a method a base's `__init__` calls (pytorch-metric-learning's
        `self.get_default_distance()`, which picks the loss's distance module), and the methods
        of plain objects, which may change them (transformers' config `__post_init__` fills
        `rope_parameters` in a mixin's method): what they set is a fact only when followed.
        Library setup such as `self.post_init()` only costs time."""
        return getattr(function, "name", "") in CONSTRUCTION_METHODS \
            or function.root() is frame.stack()[0].function.root() \
            or not isinstance(function.parent, nodes.ClassDef) \
            or self.overrides_for_base(function, frame.cls) or isinstance(receiver, Obj)

    def overrides_for_base(self, function: nodes.FunctionDef | nodes.Lambda, base: nodes.ClassDef | None) -> bool:
        """Is `function` a method of a subclass of `base` (the class whose code calls it)?"""
        owner = function.parent
        return isinstance(owner, nodes.ClassDef) and base is not None and owner is not base \
            and base in self.resolver.mro(owner)

    def summary_key(self, *args: object) -> None:
        return None

    def store_module_attribute(self, module: Value, name: str, value: Value) -> None:
        """`self.name = value` in `__init__` is the module's attribute; a submodule gets its path.
        A numpy array or scalar the module keeps is a graph input of the compiled forward, which
        dynamo wraps as a tensor: its values are data (measured: `if self.expand_poles:` on an
        `np.bool` breaks, GB0170, torch-harmonics' ResampleS2)."""
        if not isinstance(module, Module):
            return
        if isinstance(value, Module):
            value = with_path(value, join_path(module.path, name))
        elif isinstance(value, NdArray):
            value = NdArray(holds_data=True)
        if module.attrs is not None:
            self.heap.record(self.attributes_of(module))
            module.attrs[name] = value

    def attributes_of(self, module: Module) -> ModuleAttributes:
        """The one record of `module`'s attributes that branches rewind and join."""
        attributes = self._attributes.get(id(module))
        if attributes is None:
            attributes = self._attributes[id(module)] = ModuleAttributes(module, self)
        return attributes

    def new_object(self, cls: nodes.ClassDef) -> Obj:
        obj = Obj(cls)
        self.heap.objects[id(obj)] = obj
        return obj

    def static_result(self, value: Value) -> Value:
        return value


class ModuleAttributes:
    """A module's attributes while `__init__` runs, as branches see them: the paths of a test
    whose outcome is not known (`if union == "horizontal":` with `union` only assumed) each
    start from the same attributes and are joined where they meet, rather than the path run
    last deciding them. Under a test of one of the module's own flags the paths' values are
    kept, each with the flag's truth that chose it (`ChosenByFlag`)."""

    def __init__(self, module: Module, builder: InitInterpreter):
        self.module = module
        self.builder = builder

    def state(self) -> dict[str, Value]:
        return dict(self.module.attrs or {})

    def restore(self, state: dict[str, Value]) -> None:
        if self.module.attrs is not None:  # in place: the dict is shared by the attributes' cache
            self.module.attrs.clear()
            self.module.attrs.update(state)

    def join_states(self, a: dict[str, Value], b: dict[str, Value]) -> dict[str, Value]:
        joined = {key: self.set_on_one_path(key, a, b) for key in a.keys() ^ b.keys()}
        flag = self.builder.heap.flags.joining
        both = a.keys() & b.keys()
        if flag is not None and flag[0] is self.module and a.get(flag[1]) is b.get(flag[1]):
            return {**joined, **{key: chosen_by(flag[1], a[key], b[key]) for key in both}}
        return {**joined, **{key: join(a[key], b[key]) for key in both}}

    def set_on_one_path(self, key: str, a: dict[str, Value], b: dict[str, Value]) -> Value:
        """An attribute one path set and the other did not: wherever it can be read (elsewhere
        Python raises AttributeError), it is what that path set (transformers' VITS builds
        `self.cond_layer` only `if config.speaker_embedding_size != 0:`), unless the class
        has an attribute of that name to fall back on."""
        cls = self.module.cls
        if cls is not None and any(key in klass.locals for klass in self.builder.resolver.mro(cls)):
            return UNKNOWN
        return a[key] if key in a else b[key]
