"""nn.Module instances: torch.nn layers and containers, and what every module does (the
project's own modules, `UserModule`, are with its other classes in objects.py)."""
from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from astroid import nodes

from .. import rules, tables
from ..discover.resolver import is_torch_layer
from ..interpret.resume import RestEagerly
from ..ir import INPUT_GIVEN, TRAINING, Condition
from .base import UNKNOWN, Identity, Value, as_args, as_kwargs, signature_of
from .containers import Dict, Seq
from .functions import BoundMethod
from .joins import join_all
from .static import Static
from .tensors import PathTensor, Tensor, needs_grad_from

if TYPE_CHECKING:
    from ..discover.resolver import Resolver
    from ..interpret.frame import Frame
    from ..interpret.interpreter import Interpreter
    from ..ir import Node


@dataclass(eq=False)
class Module(Value):
    """An nn.Module instance; `attrs` are filled lazily by interpreting its class's `__init__`."""

    path: str  # its attribute path from the root module ("" for the root), as fx names it
    qname: str = ""
    cls: nodes.ClassDef | None = None
    items: Any = None  # list[Value] | dict[str, Value] | None (containers)
    ctor_args: tuple[list[Value], dict[str, Value]] | None = None
    attrs: dict[str, Value] | None = None

    def is_none(self) -> bool | None:
        return False

    def joined(self, other: Value) -> Value | None:
        return self if isinstance(other, Module) and self.path == other.path and _same_layer(self, other) else None

    def describe(self) -> str:
        return f"module {self.path or self.qname}"

    def converted(self, kind: type[Module], **changes: Any) -> Module:
        """The same module seen as another kind (a project subclass of nn.Linear as the layer)."""
        return kind(**{**{f.name: getattr(self, f.name) for f in fields(self)}, **changes})

    def var_getattr(self, tx: Interpreter, name: str, expr: nodes.NodeNG | None, frame: Frame) -> Value:
        written = tx.written_attribute(self, name)
        if written is not None:
            return written
        if name == "training":
            return Static.testing(Condition(TRAINING), tx.options)
        return self.own_attribute(tx, name, expr, frame)

    def own_attribute(self, tx: Interpreter, name: str, expr: nodes.NodeNG | None, frame: Frame) -> Value:
        return UNKNOWN

    def call_method(self, tx: Interpreter, name: str, args: list[Value], kwargs: dict[str, Value],
                    expr: nodes.NodeNG, frame: Frame) -> Value:
        if name in ("__call__", "forward"):
            return self.call(tx, args, kwargs, expr, frame)
        if name in ("register_buffer", "register_parameter", "add_module") and (args or name == "add_module"):
            key = args[0] if args else Static()
            if isinstance(key, Static) and isinstance(key.value, str) and len(args) > 1:
                value = args[1]
                if name != "add_module" and not isinstance(value, Tensor):
                    value = Tensor(None) if not (isinstance(value, Static) and value.value is None) else value
                if name == "register_buffer" and isinstance(value, Tensor):
                    value = replace(value, buffer=True)
                tx.store_module_attribute(self, key.value, value)
            elif name == "add_module":  # timm's `self.add_module(*stage)`: some submodule, named we do not know
                tx.store_module_attribute(self, UNNAMED_SUBMODULES, Static(True))
            return Static(None)
        if name in ("parameters", "buffers"):
            return Seq(None, elem=Tensor(None))
        if name in ("named_parameters", "named_buffers"):
            return Seq(None, elem=Seq([Static(), Tensor(None)]))
        return UNKNOWN

    def store_attribute(self, tx: Interpreter, name: str, value: Value, target: nodes.NodeNG,
                        frame: Frame) -> None:
        if tx.breaks.checkpoint_calls:
            tx.breaks.checkpointed_mutation()
        tx.store_module_attribute(self, name, value)

    def truth(self, tx: Interpreter, expr: nodes.NodeNG, frame: Frame) -> tuple[bool | None, Node | None]:
        return True, None

    def as_arg(self) -> Any:
        return f"<module {self.path}>"

    def signature(self, depth: int) -> Any:
        """Its attributes once `__init__` ran; before, the constructor arguments they will come
        from (two blocks of one class built with other arguments are not the same call)."""
        built = Identity(self.attrs) if self.attrs is not None else signature_of(self.ctor_args, depth + 1)
        return ("M", self.cls or self.qname, built)

    def configuration(self, depth: int = 0) -> Any:
        """The class and the constructor arguments' kinds and known values, submodules by their
        own configuration: instances that agree have the same parameter shapes and attributes,
        so dynamo reuses a frame compiled for one on the other (measured: two QueryHead(16, n)
        of n 5 and 3 compile the head's frame twice, query_selector.py)."""
        if self.ctor_args is None or depth > 3:
            return (self.cls or self.qname, None)
        args, kwargs = self.ctor_args
        parts = [*args, *(kwargs[k] for k in sorted(kwargs))]
        return (self.cls or self.qname, tuple(sorted(kwargs)),
                tuple(v.configuration(depth + 1) if isinstance(v, Module) else signature_of(v) for v in parts))


@dataclass(eq=False)
class LeafModule(Module):
    """A torch.nn layer: a `call_module` node, never inlined."""

    def own_attribute(self, tx: Interpreter, name: str, expr: nodes.NodeNG | None, frame: Frame) -> Value:
        if name in tables.MODULE_TENSOR_ATTRIBUTES:
            return tx.get_attr(join_path(self.path, name), expr, frame)
        if name == "forward":
            return BoundMethod(self, "__call__")
        if self.qname in tables.RNN_MODULES and name == "flatten_parameters":
            return BoundMethod(self, name)
        if name in tables.LAYER_STATIC_METHODS.get(self.qname, ()):
            return tx.value_of(tx.resolver.qualified(f"{self.qname}.{name}"), frame)  # as `nn.Transformer.<name>`
        return Static() if not name.startswith("_") else UNKNOWN

    def call(self, tx: Interpreter, args: list[Value], kwargs: dict[str, Value], expr: nodes.NodeNG,
             frame: Frame, unknown_rest: bool = False) -> Value:
        node = tx.graph.call_module(self.path or self.qname, as_args(args), as_kwargs(kwargs),
                                    meta=tx.meta(expr, frame))
        if self.qname in tables.RNN_MODULES:
            rnn_call_breaks(tx, node, expr, frame)
        for check in tables.CAUSAL_MASK_CHECKS.get(self.qname, ()):
            needs = mask_test_needs(check, args, kwargs)
            if needs is not None:
                with tx.breaks.taking(needs):
                    tx.graph_break(rules.CAUSAL_MASK_CHECK, node, expr, frame)
                break
        # Tuples (RNN, attention) unpack into getitem nodes, as in fx.
        return Tensor(node, needs_grad=self.qname not in tables.PARAMETER_FREE_LAYERS or needs_grad_from(*args))

    def call_method(self, tx: Interpreter, name: str, args: list[Value], kwargs: dict[str, Value],
                    expr: nodes.NodeNG, frame: Frame) -> Value:
        if name == "forward" and self.qname in tables.LAYER_FUNCTIONS:
            # super().forward(x) in a subclass of a torch layer: fx traces the layer's forward.
            function, params = tables.LAYER_FUNCTIONS[self.qname]
            weights = tuple(tx.get_attr(join_path(self.path, p), expr, frame).as_arg() for p in params)
            node = tx.graph.call_function(function, (*as_args(args), *weights), meta=tx.meta(expr, frame))
            return Tensor(node)
        if name in tables.LAYER_STATIC_METHODS.get(self.qname, ()):
            return self.own_attribute(tx, name, expr, frame).call(tx, args, kwargs, expr, frame)
        if name not in ("__call__", "forward") and self.qname in tables.RNN_MODULES:
            # Any use of an RNN module in the graph (`self.lstm.flatten_parameters()`) wraps it.
            call = tx.graph.python_call(f"{self.qname}.{name}", as_args(args), as_kwargs(kwargs),
                                        meta=tx.meta(expr, frame))
            rnn_call_breaks(tx, call, expr, frame)
            return UNKNOWN
        return super().call_method(tx, name, args, kwargs, expr, frame)


def rnn_call_breaks(tx: Interpreter, node: Node, expr: nodes.NodeNG, frame: Frame) -> None:
    """An RNN module used in the graph: up to 2.14 dynamo compiles what came before and runs the
    rest of the frame eagerly (GB0014; measured: speech_encoder.py, nlp_lstm_tagger.py); 2.15
    breaks at each call and resumes (GB0148; axial_lstm_mixer.py, cfg_stacked_recurrent.py)."""
    moved, version = tables.RNN_CALL_BREAKS, tx.options.torch_version
    found = moved.at(version)
    tx.graph_break(rules.RNN_MODULE, node, expr, frame, gb_ids=found.gb_ids, versions=moved.span(version),
                   eagerly=RestEagerly(frame.name, "an RNN module call") if found.rest_eagerly else None)


def mask_test_needs(check: tables.CausalMaskCheck, args: list[Value],
                    kwargs: dict[str, Value]) -> tuple[Condition, ...] | None:
    """What a call needs for torch to test its mask's values: a tensor given as the mask with
    `is_causal` left None; a root's optional input as the mask, to be given. None: no break known
    (an argument not known to be a tensor, a hint not known to be None)."""
    def argument(name: str, position: int) -> Value | None:
        return kwargs.get(name) if name in kwargs else args[position] if position < len(args) else None

    mask, hint = argument(check.mask, check.mask_position), argument(check.is_causal, check.is_causal_position)
    if not isinstance(mask, (Tensor, PathTensor)) or not (hint is None or hint.is_none() is True):
        return None
    if isinstance(mask, Tensor) and mask.weak:
        name = mask.optional_input()
        return (Condition(INPUT_GIVEN, name),) if name else None
    return ()


@dataclass(eq=False)
class ContainerModule(Module):
    """nn.Sequential, nn.ModuleList, nn.ModuleDict: `items` when `__init__` tells them; `each`
    when only what every item is, is known (a ModuleList of one project layer per
    `range(config.num_layers)`)."""

    each: Module | None = None

    def own_attribute(self, tx: Interpreter, name: str, expr: nodes.NodeNG | None, frame: Frame) -> Value:
        return BoundMethod(self, name)

    def call(self, tx: Interpreter, args: list[Value], kwargs: dict[str, Value], expr: nodes.NodeNG,
             frame: Frame, unknown_rest: bool = False) -> Value:
        if self.qname != "torch.nn.Sequential":
            return UNKNOWN
        if self.items is None or any(not isinstance(item, Module) for item in self.items):
            # `nn.Sequential(*layers)` of blocks built from unknown counts or classes: drawn,
            # never dropped (torchvision's `self.layer1 = self._make_layer(block, 64, layers[0])`)
            return OpaqueModule(self.path or self.qname).call(tx, args, kwargs, expr, frame)
        with tx.one_evaluation(expr):  # one call of the container runs all its layers
            value = args[0] if args else UNKNOWN
            for item in self.items:
                value = item.call(tx, [value], {}, expr, frame)
            return value

    def call_method(self, tx: Interpreter, name: str, args: list[Value], kwargs: dict[str, Value],
                    expr: nodes.NodeNG, frame: Frame) -> Value:
        if isinstance(self.items, list) and name in ("append", "extend", "insert", "add_module", "register_module"):
            return self.add_items(tx, name, args)
        if isinstance(self.items, dict) and name in ("add_module", "register_module", "update"):
            return self.add_items(tx, name, args)
        if name in ("values", "keys", "items", "children", "modules"):
            items = self.items
            if isinstance(items, dict):
                if name == "keys":
                    return Seq([Static(k) for k in items])
                if name == "items":
                    return Seq([Seq([Static(k), v]) for k, v in items.items()])
                return Seq(list(items.values()))
            if isinstance(items, list):
                return Seq(list(items))
        return super().call_method(tx, name, args, kwargs, expr, frame)

    def add_items(self, tx: Interpreter, name: str, args: list[Value]) -> Value:
        """`blocks.append(Block())`, `.extend(...)`, `.insert(i, ...)`, `.add_module(name, ...)`:
        the new items are submodules at their path (`blocks.3`, `blocks.proj`)."""
        tx.heap.record(self)
        items = self.items
        if name in ("add_module", "register_module") and len(args) == 2 and isinstance(args[0], Static) \
                and isinstance(args[0].value, str):
            key = args[0].value
            module = with_path(args[1], join_path(self.path, key))
            if isinstance(items, dict):
                items[key] = module
            else:
                items.append(module)
        elif name == "append" and len(args) == 1:
            items.append(with_path(args[0], join_path(self.path, str(len(items)))))
        elif name == "extend" and len(args) == 1 and isinstance(args[0], Seq) and args[0].items is not None:
            items.extend(with_path(v, join_path(self.path, str(len(items) + i))) for i, v in enumerate(args[0].items))
        elif name == "update" and len(args) == 1 and isinstance(args[0], Dict) and args[0].exact:
            items.update({k: with_path(v, join_path(self.path, str(k))) for k, v in args[0].items.items()})
        else:
            self.items = None  # inserted where, or what, is not known
        return self if name in ("append", "extend", "insert") else Static(None)

    def state(self) -> Any:
        items = self.items
        return dict(items) if isinstance(items, dict) else list(items) if isinstance(items, list) else None

    def restore(self, state: Any) -> None:
        self.items = dict(state) if isinstance(state, dict) else list(state) if isinstance(state, list) else None

    def join_states(self, a: Any, b: Any) -> Any:
        """Submodules added on some paths only: the container's items are not known."""
        return a if a == b else None

    def subscript(self, tx: Interpreter, key: Value, expr: nodes.NodeNG, frame: Frame) -> Value:
        if isinstance(key, Static) and key.known:
            return self.item(key.value)
        items = self.items
        if items is None and self.each is not None:
            # `self.layers[: config.num_hidden_layers]` is a list of such layers too
            return self if isinstance(getattr(expr, "slice", None), nodes.Slice) else self.each
        values = list(items.values()) if isinstance(items, dict) else items
        return join_all(values) if values else UNKNOWN

    def item(self, key: Any) -> Value:
        items = self.items
        try:
            if isinstance(items, dict):
                return items.get(key, UNKNOWN)
            if isinstance(items, list):
                picked = items[key]
                if isinstance(picked, list):
                    return self.converted(ContainerModule, items=picked)
                return picked
        except (TypeError, IndexError):
            pass
        return UNKNOWN

    def iterate(self, tx: Interpreter) -> list[Value] | None:
        limit = tx.options.max_unroll
        items = self.items
        if isinstance(items, dict):
            return [Static(k) for k in items] if len(items) <= limit else None
        if isinstance(items, list) and len(items) <= limit:
            return list(items)
        return None

    def element(self, tx: Interpreter, expr: nodes.NodeNG | None, frame: Frame | None) -> Value:
        items = self.items
        if isinstance(items, dict):
            return Static()
        if items is None and self.each is not None:
            return self.each
        values = items or []
        return join_all(values) if values else UNKNOWN


# The attribute a module records when `__init__` adds a submodule under a name not known statically.
UNNAMED_SUBMODULES = "<added by add_module>"


@dataclass(eq=False)
class OpaqueModule(Module):
    """A submodule built from values not known statically (a count, a block class, a name):
    called, it is one `call_module` marked opaque, with a notice, never dropped."""

    def call(self, tx: Interpreter, args: list[Value], kwargs: dict[str, Value], expr: nodes.NodeNG,
             frame: Frame, unknown_rest: bool = False) -> Value:
        tx.graph.call_module(self.path, as_args(args), as_kwargs(kwargs),
                             meta=dict(tx.meta(expr, frame), opaque="built from values not known statically"))
        site = tx.site_of(expr, frame)
        tx.state.opaque_modules.setdefault((site.line, site.col), self.path)
        return UNKNOWN


def is_module(value: Value) -> bool:
    return isinstance(value, Module)


def join_path(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def with_path(module: Value, path: str) -> Value:
    """A module stored at `path` (its items below it): fx names its nodes by that path."""
    if not isinstance(module, Module):
        return module
    items = module.items
    if isinstance(items, list):
        items = [with_path(v, join_path(path, str(i))) for i, v in enumerate(items)]
    elif isinstance(items, dict):
        items = {k: with_path(v, join_path(path, str(k))) for k, v in items.items()}
    if isinstance(module, ContainerModule) and module.each is not None:
        # fx names each item by its index, which no one item drawn for all of them has
        return module.converted(ContainerModule, path=path, each=with_path(module.each, join_path(path, "?")))
    return module.converted(type(module), path=path, items=items, attrs=None)


def torch_base(resolver: Resolver, cls: nodes.ClassDef) -> str:
    """The torch.nn layer a project class derives from (HookedLinear(nn.Linear)), if any."""
    for owner in resolver.mro(cls):
        for binding in resolver.base_classes(owner):
            if binding.kind == "external" and is_torch_layer(binding.qname):
                return binding.qname
    return ""


def _same_layer(a: Module, b: Module) -> bool:
    """Two modules at one place that do the same when called: of one class, or two torch
    layers whose calls both trace, each a `call_module` of that place (timm's `_create_fc` makes
    an nn.Identity or an nn.Linear). Not an LSTM and a Linear: the two paths of `__init__`'s
    `if mode == "lstm":` decide whether the call breaks."""
    if type(a) is type(b) and a.qname == b.qname and a.cls is b.cls:
        return True
    return isinstance(a, LeafModule) and isinstance(b, LeafModule) and not {a.qname, b.qname} & tables.RNN_MODULES
