"""Names from outside the project (torch, numpy, math, logging, ...) and objects of known types."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import rules, tables
from ..fx_names import FX_NAMES
from ..discover.resolver import CONTAINERS, DISABLE_DECORATORS, is_torch_layer
from ..interpret.resume import RestEagerly, WhollyEagerly
from ..ir import AUTOCAST, Condition, Node
from ..torch_versions import in_each_release
from .base import UNKNOWN, Value, as_args, as_kwargs
from .containers import Dict, Seq
from .distributions import TransformedDistribution
from .folding import MAX_FOLDED_SIZE
from .functions import BoundMethod, DisabledFunction, Function, Partial
from .modules import ContainerModule, LeafModule, Module, with_path
from .objects import OutputRecord, UserModule
from .static import Static
from .tensors import NdArray, Tensor, is_definite_tensor, named_tensors, needs_grad_from, reduced_in_graph, \
    sparse_operand

if TYPE_CHECKING:
    from astroid import nodes

    from ..interpret.frame import Frame
    from ..interpret.interpreter import Interpreter


@dataclass(eq=False)
class External(Value):
    """A name from outside the project, resolved by import statements: `torch.nonzero`."""

    qname: str

    def var_getattr(self, tx: Interpreter, name: str, expr: nodes.NodeNG, frame: Frame) -> Value:
        return tx.value_of(tx.resolver.qualified(f"{self.qname}.{name}"), frame)

    def call(self, tx: Interpreter, args: list[Value], kwargs: dict[str, Value], expr: nodes.NodeNG,
             frame: Frame, unknown_rest: bool = False) -> Value:
        qname = self.qname
        if qname == "torch._dynamo.step_unsupported":
            return step_unsupported(tx, expr, frame)
        version = tx.options.torch_version
        special = tx.breaking_call(qname, args)
        if special is not None:
            if special.breaks(args, kwargs) and not (unknown_rest and special.reads_arguments_given):
                create = tx.graph.call_function if special.in_graph else tx.graph.python_call
                node = create(fx_target(qname), as_args(args), as_kwargs(kwargs), meta=tx.meta(expr, frame))
                eagerly = RestEagerly(frame.name, special.rest_eagerly) if special.rest_eagerly else None
                tx.graph_break(special.rule, node, expr, frame, qname=qname, gb_ids=special.gb_ids_in(version),
                               versions=special.versions(version), eagerly=eagerly)
                return special.result(node, args, qname)
            if special.otherwise is not None:
                return special.otherwise(args)
        if qname in tables.ENVIRONMENT_LOOKUPS:
            fallback = args[1] if len(args) > 1 else kwargs.get("default", Static(None))
            if isinstance(fallback, Static) and fallback.known:
                return Static(fallback.value, assumed=True)  # the variable is usually unset
            return Static()
        if qname in tables.STATIC_FUNCTIONS:
            return Static(tables.STATIC_FUNCTIONS[qname])
        if qname in tables.RUN_TESTS:
            return Static.testing(Condition(tables.RUN_TESTS[qname]), tx.options)
        if qname in tables.AUTOCAST_TESTS:
            return autocast_test(tx, args, kwargs, tables.AUTOCAST_TESTS[qname])
        if qname in tables.LOGGER_FACTORIES:
            return Instance("logging.Logger")
        if qname in tables.UNSUPPORTED_CONTEXTS or qname in tables.MOCK_CLASSES or qname in tables.INSTANCE_CLASSES:
            return Instance(qname)
        if qname == "functools.partial" and args and not unknown_rest:
            return Partial(args[0], args[1:], kwargs)
        if qname in tables.CALL_FIRST_ARGUMENT:
            if args and isinstance(args[0], (Function, Module)):
                kept = {k: v for k, v in kwargs.items() if k != "use_reentrant"}
                return tx.breaks.checkpointed(args[0], args[1:], kept, expr, frame)
            return UNKNOWN
        if qname in tables.TRANSFORMED_DISTRIBUTION_CLASSES:
            return TransformedDistribution.construct(args, kwargs, unknown_rest)
        if qname in DISABLE_DECORATORS and len(args) == 1 and not kwargs and isinstance(args[0], Function):
            return DisabledFunction(args[0])  # torch.compiler.disable(f)(x)
        if qname.startswith("torch."):
            return torch_call(tx, qname, args, kwargs, expr, frame, unknown_rest)
        if qname in tables.TRACED_RANDOM_FUNCTIONS:
            return Tensor(None, python_random=True)
        if qname.startswith("numpy."):
            result = numpy_call(tx, qname, args, kwargs, expr, frame)
            if result is not None:
                return result
        if qname.startswith("math."):
            if not all(isinstance(a, Static) for a in args):
                return UNKNOWN
            if any(a.node is not None for a in args):  # fx autowraps math: `math.sqrt(d // h)` is a node
                return Static(node=tx.graph.call_function(qname, tuple(a.as_arg() for a in args),
                                                          meta=dict(tx.meta(expr, frame), on_python_numbers=True)))
            return Static()
        record = tx.resolver.oversized_output_record(qname)
        if record is not None:
            return OutputRecord.construct({name: Static(None) if none else None for name, none in record.items()},
                                          args, kwargs, unknown_rest)
        if qname == "itertools.repeat":
            repeated = repeat_items(args, kwargs)
            if repeated is not None:
                return repeated
        tx.call_not_followed(qname, expr, frame)
        return opaque_call(tx, qname, args, kwargs, expr, frame)

    def is_none(self) -> bool | None:
        # `norm_layer=nn.BatchNorm2d` handed in; other imports may be None-guarded
        return False if self.qname.split(".", 1)[0] == "torch" else None

    def joined(self, other: Value) -> Value | None:
        return self if isinstance(other, External) and _same_external(self.qname, other.qname) else None

    def truth(self, tx: Interpreter, expr: nodes.NodeNG, frame: Frame) -> tuple[bool | None, Node | None]:
        return True, None

    def as_arg(self) -> Any:
        return self.qname  # torch.long, torch.float32


@dataclass(eq=False)
class Instance(Value):
    """An object of a known external type, e.g. a `logging.Logger`."""

    qname: str

    def var_getattr(self, tx: Interpreter, name: str, expr: nodes.NodeNG, frame: Frame) -> Value:
        return BoundMethod(self, name)

    def call(self, tx: Interpreter, args: list[Value], kwargs: dict[str, Value], expr: nodes.NodeNG,
             frame: Frame, unknown_rest: bool = False) -> Value:
        if self.qname in tables.MOCK_CLASSES:
            call = tx.graph.python_call(self.qname, as_args(args), as_kwargs(kwargs), meta=tx.meta(expr, frame))
            tx.graph_break(rules.SKIPPED_FUNCTION_CALL, call, expr, frame, gb_ids=("GB0008",))
        return UNKNOWN

    def call_method(self, tx: Interpreter, name: str, args: list[Value], kwargs: dict[str, Value],
                    expr: nodes.NodeNG, frame: Frame) -> Value:
        if self.qname == "logging.Logger" and name in tables.LOGGER_METHODS:
            qname = f"logging.Logger.{name}"
            call = tx.graph.python_call(qname, as_args(args), as_kwargs(kwargs), meta=tx.meta(expr, frame))
            tx.graph_break(rules.LOGGER_CALL, call, expr, frame, qname=qname)
            if name == "isEnabledFor" and args and isinstance(args[0], External):
                enabled = tables.ENABLED_AT_DEFAULT_LEVEL.get(args[0].qname)
                if enabled is not None:
                    return Static(enabled, assumed=True)
        if self.qname == "torch.Generator" and name == "manual_seed":
            return self  # it returns the generator
        return self.breaking_method(tx, name, args, kwargs, expr, frame)

    def breaking_method(self, tx: Interpreter, name: str, args: list[Value], kwargs: dict[str, Value],
                        expr: nodes.NodeNG, frame: Frame) -> Value:
        """A method breaks.BREAKING_CALLS names by its class (`contextvars.ContextVar.get`)."""
        qname, version = f"{self.qname}.{name}", tx.options.torch_version
        special = tx.breaking_call(qname, args)
        if special is None or not special.breaks(args, kwargs):
            return UNKNOWN
        call = tx.graph.python_call(qname, as_args(args), as_kwargs(kwargs), meta=tx.meta(expr, frame))
        tx.graph_break(special.rule, call, expr, frame, qname=qname, gb_ids=special.gb_ids_in(version),
                       versions=special.versions(version))
        return special.result(call, args, qname)

    def enter(self, tx: Interpreter, expr: nodes.NodeNG, frame: Frame) -> None:
        """`with` this object: the known-unsupported context managers break (GB0142)."""
        if self.qname in tables.UNSUPPORTED_CONTEXTS:
            node = tx.graph.python_call(self.qname, (), meta=tx.meta(expr, frame))
            tx.graph_break(rules.UNSUPPORTED_CONTEXT_MANAGER, node, expr, frame)


def repeat_items(args: list[Value], kwargs: dict[str, Value]) -> Value | None:
    """`itertools.repeat(x, n)` of a known count (timm's `to_2tuple(x)` is `tuple(repeat(x, 2))`):
    the n items; None for an endless or unknown count."""
    times = args[1] if len(args) > 1 else kwargs.get("times")
    if not args or not isinstance(times, Static) or type(times.value) is not int \
            or not 0 <= times.value <= MAX_FOLDED_SIZE:
        return None
    return Seq([args[0]] * times.value)


def step_unsupported(tx: Interpreter, expr: nodes.NodeNG, frame: Frame) -> Value:
    """`torch._dynamo.step_unsupported()` (measured with 2.13: GB4636, or GB0275 when it is an
    empty checkpoint, as its docstring warns)."""
    node = tx.graph.python_call("torch._dynamo.step_unsupported", meta=tx.meta(expr, frame))
    stepped = tx.breaks.stop_tracing(rules.EXPLICIT_GRAPH_BREAK, node, expr, frame, "torch._dynamo.step_unsupported()",
                              gb_ids=("GB4636",))
    if not stepped:
        tx.graph_break(rules.EXPLICIT_GRAPH_BREAK, node, expr, frame, gb_ids=("GB0275",),
                       eagerly=WhollyEagerly(frame.name, "an empty checkpoint"))
    return Static(None)


def torch_call(tx: Interpreter, qname: str, args: list[Value], kwargs: dict[str, Value],
               expr: nodes.NodeNG, frame: Frame, unknown_rest: bool = False) -> Value:
    """A torch function, layer or class: a graph op unless it makes a module or a Python value."""
    last = qname.rsplit(".", 1)[-1]
    if qname in tables.RETURNS_ITS_MODULE:
        return args[0] if args and isinstance(args[0], Module) else UNKNOWN
    if is_torch_layer(qname):
        return LeafModule("", qname=qname, ctor_args=(args, kwargs))
    if qname in CONTAINERS or qname == "torch.nn.Module":
        return make_container(qname, args, unknown_rest)
    if qname in ("torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.Buffer"):
        return Tensor(None)
    if last[:1].isupper() and qname not in tables.TORCH_TENSOR_CLASSES:
        return Static() if qname in tables.TORCH_STATIC_CLASSES else UNKNOWN
    query = last.startswith(tables.TORCH_QUERY_PREFIXES)
    if skipped_torch_call(tx, qname, query, args, kwargs, expr, frame):
        return Static() if query else UNKNOWN
    if query:
        return Static()  # torch.is_autocast_enabled(), torch.get_autocast_dtype(), ...
    if qname in tables.TORCH_NON_TENSOR_FUNCTIONS:
        return UNKNOWN  # torch.no_grad(), torch.jit.annotate(...): nothing fx records
    node = tx.graph.call_function(fx_target(qname), as_args(args), as_kwargs(kwargs), meta=tx.meta(expr, frame))
    if any(isinstance(v, Tensor) and v.sparse for v in [*args, *kwargs.values()]):
        return sparse_operand(tx, node, expr, frame)
    generator = kwargs.get("generator")
    if isinstance(generator, Instance) and generator.qname == "torch.Generator":
        tx.graph_break(rules.GENERATOR_IN_FORWARD, node, expr, frame)  # made in this function: GB0055
    if qname in tables.SIZE_FUNCTIONS and reduced_in_graph(
            tx, [*args[tables.SIZE_FUNCTIONS[qname]], *(v for k, v in kwargs.items() if k in tables.SIZE_KEYWORDS)]):
        # torch.arange(lengths.max())
        tx.graph_break(rules.TENSOR_TO_PYTHON_SCALAR, node, expr, frame, gb_ids=("GB0033",))
    if sets_requires_grad(kwargs.get("requires_grad")):
        # torch.zeros(..., requires_grad=True)
        tx.graph_break(rules.REQUIRES_GRAD_MUTATION, node, expr, frame, gb_ids=("GB0225",))
    if last in tables.TENSOR_NAMED_TUPLES:
        return named_tensors(tx, node, tables.TENSOR_NAMED_TUPLES[last], expr, frame)
    is_bool = last in tables.TENSOR_BOOL_METHODS or (  # torch.repeat_interleave(mask, 2) is a mask
        last in tables.TENSOR_SAME_DTYPE_METHODS and bool(args) and isinstance(args[0], Tensor) and args[0].is_bool)
    return Tensor(node, is_bool=is_bool, needs_grad=not is_bool and needs_grad_from(*args, *kwargs.values()))


def skipped_torch_call(tx: Interpreter, qname: str, query: bool, args: list[Value], kwargs: dict[str, Value],
                       expr: nodes.NodeNG, frame: Frame) -> bool:
    """Dynamo skips calling the torch function when its release's trace rules say so (GB0007): a
    rule marks it skipped (torch.get_rng_state, torch.jit.isinstance: ver_generated_skips.py), or
    it is a query right in a module of MOD_SKIPLIST (torch.mps.is_available in 2.13)."""
    skipped, version = in_each_release(lambda facts: facts.skips_torch_function(qname, by_module=query)), \
        tx.options.torch_version
    if not skipped.at(version):
        return False
    call = tx.graph.python_call(qname, as_args(args), as_kwargs(kwargs), meta=tx.meta(expr, frame))
    tx.graph_break(rules.SKIPPED_FUNCTION_CALL, call, expr, frame, qname=qname, gb_ids=("GB0007",),
                   versions=skipped.span(version))
    return True


def numpy_call(tx: Interpreter, qname: str, args: list[Value], kwargs: dict[str, Value],
               expr: nodes.NodeNG, frame: Frame) -> Value | None:
    """Dynamo traces numpy as tensor ops: on an array made from a tensor (or on the tensor,
    `np.asarray(t)`), or on a Python sequence, the result is data (see NdArray). None: a
    numpy function not modelled here."""
    holds_data = any((isinstance(a, NdArray) and a.holds_data) or is_sequence(a) for a in args)
    if qname in tables.NUMPY_DYNAMIC_SHAPE_FUNCTIONS and holds_data:
        node = tx.graph.call_function(qname, as_args(args), as_kwargs(kwargs), meta=tx.meta(expr, frame))
        tx.graph_break(rules.DYNAMIC_OUTPUT_SHAPE, node, expr, frame, qname=qname)
        return NdArray(holds_data=True)
    if qname in tables.NUMPY_SIZED_FACTORIES and any(size_is_data(size) for size in numpy_sizes(qname, args, kwargs)):
        node = tx.graph.call_function(qname, as_args(args), as_kwargs(kwargs), meta=tx.meta(expr, frame))
        tx.graph_break(rules.TENSOR_TO_PYTHON_SCALAR, node, expr, frame, gb_ids=("GB0033",))
        return NdArray(holds_data=True)
    if qname in ("numpy.asarray", "numpy.array") and args and is_definite_tensor(args[0]):
        return NdArray(holds_data=True)
    if qname in tables.NUMPY_ARRAY_FUNCTIONS and not any(isinstance(a, Tensor) for a in args):
        return NdArray(holds_data=holds_data)
    return None


def numpy_sizes(qname: str, args: list[Value], kwargs: dict[str, Value]) -> list[Value]:
    """The sizes a numpy factory is given: arange's bounds, the others' shape (an int or a tuple)."""
    from .containers import Seq

    if qname == "numpy.arange":
        return [*args, *(kwargs[k] for k in ("start", "stop", "step") if k in kwargs)]
    shape = args[0] if args else kwargs.get("shape")
    if isinstance(shape, Seq) and shape.items is not None:
        return list(shape.items)
    return [shape] if shape is not None else []


def size_is_data(size: Value) -> bool:
    """A size dynamo has only as traced data: an array holding data (`np.sum(counts)`) or a tensor."""
    return (isinstance(size, NdArray) and size.holds_data) or (is_definite_tensor(size) and not size.scalar)


def is_sequence(value: Value) -> bool:
    """A tuple or list of Python values (`[h, w]`, a tensor's shape `x.shape[1:]`)."""
    if isinstance(value, Seq) or (isinstance(value, Static) and isinstance(value.value, (tuple, list))):
        return True
    return isinstance(value, Static) and is_shape_node(value.node)


def is_shape_node(node: Node | None) -> bool:
    """Does the node give a tensor's whole shape, or a slice of it (`x.shape`, `x.size()`, `x.shape[1:]`)?"""
    if node is None:
        return False
    if node.target == "getattr" and node.args[1:] == ("shape",):
        return True
    if node.op == "call_method" and node.target == "size" and len(node.args) == 1 and not node.kwargs:
        return True
    return node.target == "operator.getitem" and isinstance(node.args[0], Node) \
        and isinstance(node.args[1], slice) and is_shape_node(node.args[0])


def opaque_call(tx: Interpreter, target: str, args: list[Value], kwargs: dict[str, Value],
                expr: nodes.NodeNG, frame: Frame) -> Value:
    """A call the analysis does not follow: recorded when it takes tensors, its result unknown."""
    if any(isinstance(v, Tensor) for v in [*args, *kwargs.values()]):
        tx.graph.call_function(target, as_args(args), as_kwargs(kwargs), meta=tx.meta(expr, frame))
    return UNKNOWN


def sets_requires_grad(flag: Value | None) -> bool:
    """`requires_grad=` of a tensor factory that is true on ordinary calls: a constant, or
    `self.training` (true while training)."""
    if not isinstance(flag, Static) or flag.assumed:
        return False
    return flag.varies or (flag.known and flag.value is True)


def fx_target(qname: str) -> str:
    """The call_function target torch.fx records for a function the user spells `qname`."""
    return FX_NAMES.get(qname, qname)


def _same_external(a: str, b: str) -> bool:
    """One name, or two that do the same (`parametrizations.weight_norm` if torch has it, else
    `utils.weight_norm`: either returns the module it is given)."""
    return a == b or (a in tables.RETURNS_ITS_MODULE and b in tables.RETURNS_ITS_MODULE)


def make_container(qname: str, args: list[Value], unknown_rest: bool = False) -> ContainerModule:
    """`nn.Sequential(...)`, `nn.ModuleList(...)`, `nn.ModuleDict(...)`, `nn.Module()`;
    `unknown_rest`: a spread of unknown length was passed too (`nn.Sequential(*layers)`)."""
    if unknown_rest:
        return ContainerModule("", qname=qname)  # its items are not known
    items: Any = None
    if qname == "torch.nn.ModuleDict":
        source = args[0] if args else Dict({})
        if isinstance(source, Dict) and source.complete:
            items = dict(source.items)
    elif not args:
        items = []
    elif qname == "torch.nn.Sequential" and len(args) == 1 and isinstance(args[0], Dict) and args[0].complete:
        items = dict(args[0].items)
    elif qname == "torch.nn.Sequential" and not isinstance(args[0], Seq):
        items = list(args)
    elif isinstance(args[0], Seq) and args[0].items is not None:
        items = list(args[0].items)
    elif qname == "torch.nn.ModuleList" and isinstance(args[0], Seq) and isinstance(args[0].elem, UserModule):
        return ContainerModule("", qname=qname, each=with_path(args[0].elem, "?"))
    if isinstance(items, dict) and qname == "torch.nn.Sequential":
        items = [with_path(v, str(k)) for k, v in items.items()]
        return ContainerModule("", qname=qname, items=items)
    if isinstance(items, list):
        items = [with_path(v, str(i)) for i, v in enumerate(items)]
    return ContainerModule("", qname=qname, items=items)


def autocast_test(tx: Interpreter, args: list[Value], kwargs: dict[str, Value], device: str) -> Static:
    """`torch.is_autocast_enabled("cpu")`: true under autocast for that device (`device` when
    none is given; the run's own when not known, as `x.device.type` is); dynamo guards on it
    rather than break."""
    given = args[0] if args else kwargs.get("device_type", Static(device))
    named = isinstance(given, Static) and given.known and isinstance(given.value, str)
    return Static.testing(Condition(AUTOCAST, given.value if named else ""), tx.options)
