"""What a compile root's parameters are: tensors unless annotated or defaulted otherwise, or
filled otherwise by every call of the file (a function, an int), for a library root
(--staticfx-library-roots) too, except its *args."""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Callable

from astroid import nodes

from .. import tables
from ..discover.callers import Passed, calling_files, forward_passed_by_callers, passed_by_callers
from ..discover.compiled import compile_index
from ..discover.parse import nodes_of_class
from ..fx_names import TENSOR_MEMBERS
from ..values import (
    UNKNOWN, Dict, Function, LeafModule, Module, PassedIterator, Seq, Static, Tensor, UserModule, Value,
)

if TYPE_CHECKING:
    from ..discover.roots import Root
    from .interpreter import Interpreter


def root_receiver(tx: Interpreter, root: Root) -> Value | None:
    """The `self` of a root method: the module as the project's compile call builds it
    (`torch.compile(Net(debug=True))`), else built we do not know how (its defaults assumed)."""
    if root.cls is None or tx.resolver.is_staticmethod(root.function):
        return None
    if not tx.resolver.is_module_class(root.cls):
        return UNKNOWN
    built_with = None if root.built_with is None else ([], {k: Static(v) for k, v in root.built_with.items()})
    return UserModule("", cls=root.cls, ctor_args=built_with)


def root_parameters(tx: Interpreter, function: nodes.FunctionDef, receiver: Value | None,
                    library: bool = False, compiled: bool = False) -> dict[str, Value]:
    """The environment a root starts in: one placeholder per parameter, as fx makes them.

    `compiled`: a function the project compiles; a parameter every call of its file fills with
    one function or with ints is that (callers.py), not a tensor.

    `library`: a library's public function is typed as a forward is (its callers pass tensors
    where its body uses them, and a default is one value it may take), except what may be
    anything: its *args (einops' `einsum(*tensors_and_pattern)` ends with a string) and an
    unannotated input defaulting to None (torchdiffeq's `odeint(func, y0, t, method=None)`).
    """
    # The body is walked only when a parameter neither annotated nor defaulted asks (most
    # library forwards annotate theirs).
    used_as_tensor = functools.cache(lambda: _names_used_as_tensors(tx, function, receiver))
    spec = function.args
    params = [*spec.posonlyargs, *spec.args]
    env: dict[str, Value] = {name: _passed_value(passed) for name, passed in
                             _told_by_callers(tx, function, receiver, compiled).items()}
    annotations = [*spec.posonlyargs_annotations, *spec.annotations]
    if receiver is not None and params:
        env[params[0].name] = receiver
        params, annotations = params[1:], annotations[1:]
    defaults = spec.defaults or []
    first_default = len(params) - len(defaults)
    for index, param in enumerate(params):
        default = defaults[index - first_default] if index >= first_default else None
        annotation = annotations[index] if index < len(annotations) else None
        if param.name not in env:
            env[param.name] = _param_value(tx, param, annotation, default, used_as_tensor, library)
    for param, annotation, default in zip(spec.kwonlyargs, spec.kwonlyargs_annotations,
                                          spec.kw_defaults or [None] * len(spec.kwonlyargs)):
        if param.name not in env:
            env[param.name] = _param_value(tx, param, annotation, default, used_as_tensor, library)
    if spec.vararg:
        placeholder = tx.graph.placeholder(spec.vararg)
        env[spec.vararg] = Seq(None, elem=UNKNOWN if library else Tensor(placeholder, weak=True))
    if spec.kwarg:
        tx.graph.placeholder(spec.kwarg)
        env[spec.kwarg] = Dict({}, complete=False, absent_assumed=True)
    return env


def _told_by_callers(tx: Interpreter, function: nodes.FunctionDef, receiver: Value | None,
                     compiled: bool) -> dict[str, Passed]:
    """What the project's calls pass a compiled function, or (only iterators) the forward of a
    compiled module."""
    if not compiled:
        return {}
    if receiver is None:
        return _passed_by_callers(tx, function)
    if isinstance(receiver, UserModule) and function.name == "forward":
        return forward_passed_by_callers(tx.resolver, receiver.cls, function)
    return {}


def _passed_by_callers(tx: Interpreter, function: nodes.FunctionDef) -> dict[str, Passed]:
    """What the calls of a compiled function pass it: its own file's, and those of the project
    files importing it, when the project is indexed."""
    project = tx.resolver.project
    index = compile_index(project.root, project.packages, tx.options.compiled_only)
    others = calling_files(tx.resolver, index, function) if index is not None else []
    return passed_by_callers(tx.resolver, function, others)


def _passed_value(passed: Passed) -> Value:
    """The function every call passes, an iterator, or an int dynamo specialises on (known when
    one value)."""
    if passed.function is not None:
        return Function(passed.function)
    if passed.iterator is not None:
        return PassedIterator(passed.iterator)
    return Static(next(iter(passed.ints))) if len(passed.ints) == 1 else Static()


def _names_used_as_tensors(tx: Interpreter, function: nodes.FunctionDef, receiver: Value | None) -> frozenset[str]:
    """Names `function` uses as only a tensor can be used: a tensor attribute no Python
    value has (x.sum(), x.shape; not cache.get_seq_length()), or the input of a torch.nn
    layer or of a torch function."""
    params = {param.name for param in function.args.arguments}
    used = set()
    for node in nodes_of_class(function, (nodes.Attribute, nodes.Call)):
        if isinstance(node, nodes.Attribute):
            if isinstance(node.expr, nodes.Name) and node.attrname in TENSOR_MEMBERS \
                    and node.attrname not in tables.BUILTIN_VALUE_ATTRIBUTES:
                used.add(node.expr.name)
        elif node.args and isinstance(node.args[0], nodes.Name) and node.args[0].name in params \
                and node.args[0].name not in used and _takes_tensor(tx, node.func, receiver):
            used.add(node.args[0].name)
    return frozenset(used & params)


def _takes_tensor(tx: Interpreter, func: nodes.NodeNG, receiver: Value | None) -> bool:
    if isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name) and func.expr.name == "self":
        layer = tx.module_attrs(receiver).get(func.attrname) if isinstance(receiver, Module) else None
        return isinstance(layer, LeafModule) or (isinstance(layer, Module) and layer.qname == "torch.nn.Sequential")
    qname = tx.resolver.expr_qname(func) if isinstance(func, (nodes.Name, nodes.Attribute)) else None
    last = (qname or "").rsplit(".", 1)[-1]
    return bool(qname) and qname.startswith("torch.") and last[:1].islower() \
        and last not in tables.TORCH_FACTORIES and not last.startswith(tables.TORCH_QUERY_PREFIXES)


def _param_value(tx: Interpreter, param: nodes.AssignName, annotation: nodes.NodeNG | None,
                 default: nodes.NodeNG | None, used_as_tensor: Callable[[], frozenset[str]],
                 library: bool) -> Value:
    """Forward inputs are tensors unless annotated or defaulted otherwise; a library's input
    defaulting to None is unknown (`method=None`, `options=None` are seldom tensors)."""
    kind = tables.annotation_kind(tx.resolver, annotation)
    if kind is None and library and isinstance(default, nodes.Const) and default.value is None:
        kind = "unknown"
    if isinstance(default, nodes.Const) and default.value is not None:
        kind = "static"  # `output_attentions: Tensor | None = False` is a flag
    node = tx.graph.placeholder(param.name, meta=tx.meta(param, None))
    if isinstance(default, nodes.Const) and default.value is None:
        node.meta["optional"] = True  # `if mask is not None:` tests whether it was given
    if default is None and tables.is_tensor_sequence(tx.resolver, annotation):
        return Seq(None, elem=Tensor(node), is_list=True)  # `feats: List[Tensor]`
    if kind == "tensor":
        node.meta["annotated_tensor"] = True
        return Tensor(node, weak=isinstance(default, nodes.Const) and default.value is None,
                      is_bool=tables.is_bool_mask(tx.resolver, param.name, annotation))
    if kind == "static" or (default is not None and not (isinstance(default, nodes.Const) and default.value is None)):
        return Static(optional_input=param.name if node.meta.get("optional") else "")
    if kind == "unknown":
        return UNKNOWN
    # An input used as a tensor in the root's own body (x.sum(), x.shape) is one; an input
    # only used with operators may be an int (a rope module's `num_frames`).
    return Tensor(node, weak=param.name not in used_as_tensor(),
                  is_bool=tables.is_bool_mask(tx.resolver, param.name, None))
