"""Python's builtins, each call in a `call_<name>` method, as dynamo's BuiltinVariable has them."""
from __future__ import annotations

import builtins
from typing import TYPE_CHECKING

from astroid import nodes

from .. import rules, tables
from ..discover.resolver import is_torch_layer
from ..interpret.resume import WhollyEagerly
from .base import NOTHING, UNKNOWN, Value, as_args, as_kwargs
from .containers import Dict, Seq
from .externals import External
from .folding import fold
from .functions import Function, Partial
from .modules import Module
from .objects import ClassRef, Super, metaclass_method
from .static import Static, derived, element_count
from .tensors import NdArray, Tensor, is_definite_tensor, only_weak, python_scalar

if TYPE_CHECKING:
    from ..interpret.frame import Frame
    from ..interpret.interpreter import Interpreter

Args = list[Value]
Kwargs = dict[str, Value]


class Builtin(External):
    """A builtin function: `len`, `range`, `print`, ..."""

    def call(self, tx: Interpreter, args: Args, kwargs: Kwargs, expr: nodes.NodeNG, frame: Frame,
             unknown_rest: bool = False) -> Value:
        name = self.qname
        if name in tables.PURE_BUILTINS and args and all(
                isinstance(v, Static) and v.known and v.node is None for v in [*args, *kwargs.values()]):
            # str(3), sorted((6, 1), reverse=True), max(2, 4): compute as Python would.
            result = fold(getattr(builtins, name), *(a.value for a in args), **{k: v.value for k, v in kwargs.items()})
            if result is NOTHING:
                return Static()
            if isinstance(result, list):
                return Seq([derived(v, *args) for v in result], is_list=True)
            return derived(result, *args)
        if name in tx.options.reorderable_logging_functions and reorderable(args, kwargs):
            return Static(None)
        version = tx.options.torch_version
        special = tx.breaking_call(name, args)
        if special is not None:
            node = tx.graph.python_call(name, as_args(args), as_kwargs(kwargs), meta=tx.meta(expr, frame))
            advice = rules.REORDERABLE_PRINT if name == "print" and _reorderable_print(expr, args, kwargs) else None
            tx.graph_break(special.rule, node, expr, frame, gb_ids=special.gb_ids_in(version),
                           versions=special.versions(version), advice=advice)
            return special.result(node, args, name)
        method = getattr(self, f"call_{name}", None)
        if method is not None:
            return method(tx, args, kwargs, expr, frame)
        return Static() if name in tables.STATIC_BUILTINS else UNKNOWN

    def call_str(self, tx: Interpreter, args: Args, kwargs: Kwargs, expr: nodes.NodeNG, frame: Frame) -> Value:
        """The text of a tensor needs its data (GB0059 for str, GB0569 for repr)."""
        if args and is_definite_tensor(args[0]):
            node = tx.graph.python_call(self.qname, (args[0].as_arg(),), meta=tx.meta(expr, frame))
            tx.graph_break(rules.UNTRACEABLE_BUILTIN, node, expr, frame)
        return Static()

    call_repr = call_str

    def call_int(self, tx: Interpreter, args: Args, kwargs: Kwargs, expr: nodes.NodeNG, frame: Frame) -> Value:
        """int(t), float(t), bool(t): the tensor's value as a Python number (GB0124)."""
        first = args[0] if args else UNKNOWN
        if is_definite_tensor(first) and not first.scalar:
            node = tx.graph.call_function(self.qname, (first.as_arg(),), meta=tx.meta(expr, frame))
            tx.graph_break(rules.TENSOR_TO_PYTHON_SCALAR, node, expr, frame)
            return python_scalar(tx, node)
        if isinstance(first, NdArray) and first.holds_data:
            # int(np.max(lengths.numpy())): the array is a traced tensor (GB0033, measured).
            node = tx.graph.call_function(self.qname, (first.as_arg(),), meta=tx.meta(expr, frame))
            tx.graph_break(rules.TENSOR_TO_PYTHON_SCALAR, node, expr, frame, gb_ids=("GB0033",))
            return Static(node=node)
        if isinstance(first, Tensor):
            return first if first.scalar else UNKNOWN
        if isinstance(first, Static) and first.known:
            try:
                return Static(getattr(builtins, self.qname)(first.value))
            except Exception:  # noqa: BLE001 - any Python value
                return Static()
        return Static() if isinstance(first, Static) or not args else UNKNOWN

    call_float = call_bool = call_complex = call_int

    def call_sorted(self, tx: Interpreter, args: Args, kwargs: Kwargs, expr: nodes.NodeNG, frame: Frame) -> Value:
        run_key(tx, args, kwargs, expr, frame)
        first = args[0] if args else UNKNOWN
        if is_definite_tensor(first):
            # Iterating a tensor with Python's sort (GB0059).
            node = tx.graph.call_function("sorted", as_args(args), meta=tx.meta(expr, frame))
            tx.graph_break(rules.SORTED_OVER_TENSOR, node, expr, frame)
            return Seq(None, elem=Tensor(node), is_list=True)
        items = first.iterate(tx) if args and set(kwargs) <= {"reverse"} else None
        reverse = kwargs.get("reverse", Static(False))
        if items is not None and isinstance(reverse, Static) and reverse.known and all(
                isinstance(i, Static) and i.known for i in items):
            try:
                ordered = sorted((i.value for i in items), reverse=bool(reverse.value))
                return Seq([derived(v, first, *items) for v in ordered], is_list=True)
            except TypeError:
                pass
        return Seq(None, elem=first.element(tx, None, frame), is_list=True) if args else UNKNOWN

    def call_min(self, tx: Interpreter, args: Args, kwargs: Kwargs, expr: nodes.NodeNG, frame: Frame) -> Value:
        key = kwargs.get("key")
        ranked_by = run_key(tx, args, kwargs, expr, frame)
        if isinstance(key, External) and key.qname.startswith("torch.") and args:  # key=torch.norm
            ranked_by = key.call(tx, [args[0].element(tx, None, frame)], {}, expr, frame)
        kind = "tensor" if is_definite_tensor(ranked_by) else "closure" if closes_over_locals(key) else None
        moved = tables.MIN_MAX_KEY_BREAKS.get(kind)
        if moved is not None and args:
            version = tx.options.torch_version
            if moved.at(version) is not None:
                node = tx.graph.python_call(self.qname, as_args(args), as_kwargs(kwargs), meta=tx.meta(expr, frame))
                tx.graph_break(rules.MIN_MAX_KEY, node, expr, frame, gb_ids=moved.at(version),
                               versions=moved.span(version))
                return args[0].element(tx, None, frame) if len(args) == 1 else UNKNOWN
        return self.call_abs(tx, args, kwargs, expr, frame)

    call_max = call_min

    def call_abs(self, tx: Interpreter, args: Args, kwargs: Kwargs, expr: nodes.NodeNG, frame: Frame) -> Value:
        """Numeric builtins: traced on tensors, static on static values."""
        values = args[0].items if len(args) == 1 and isinstance(args[0], Seq) and args[0].items else args
        if any(isinstance(v, Tensor) for v in values):
            node = tx.graph.call_function(self.qname, as_args(args), meta=tx.meta(expr, frame))
            return Tensor(node, weak=only_weak(*values))
        if values is not args and not kwargs and all(isinstance(v, Static) and v.known for v in values):
            # sum(block_repeats), max(widths) over a known sequence: computed as Python would
            result = fold(getattr(builtins, self.qname), [v.value for v in values])
            return Static() if result is NOTHING else derived(result, *values)
        return Static() if all(isinstance(v, Static) for v in values) else UNKNOWN

    call_sum = call_round = call_pow = call_divmod = call_abs

    def call_len(self, tx: Interpreter, args: Args, kwargs: Kwargs, expr: nodes.NodeNG, frame: Frame) -> Value:
        first = args[0] if args else UNKNOWN
        if isinstance(first, Seq) and first.items is not None:
            return Static(len(first.items))
        if isinstance(first, Module) and isinstance(first.items, (list, dict)):
            return Static(len(first.items))
        if is_definite_tensor(first) and isinstance(expr, nodes.Call) and expr.args:
            return element_count(expr.args[0].as_string())
        return Static()

    def call_range(self, tx: Interpreter, args: Args, kwargs: Kwargs, expr: nodes.NodeNG, frame: Frame) -> Value:
        if any(is_definite_tensor(a) for a in args):
            # range(n) of a tensor n: dynamo breaks (tables.RANGE_OF_TENSOR_BREAKS).
            moved, version = tables.RANGE_OF_TENSOR_BREAKS, tx.options.torch_version
            node = tx.graph.python_call("range", as_args(args), meta=tx.meta(expr, frame))
            tx.graph_break(rules.UNTRACEABLE_BUILTIN, node, expr, frame, gb_ids=moved.at(version),
                           versions=moved.span(version), advice=rules.RANGE_OF_TENSOR)
            return Seq(None, elem=Static())
        if args and all(isinstance(a, Static) and isinstance(a.value, int) for a in args):
            bounds = range(*(a.value for a in args))
            if len(bounds) <= tx.options.max_unroll:
                return Seq([derived(i, *args) for i in bounds])
        return Seq(None, elem=Static())

    def call_next(self, tx: Interpreter, args: Args, kwargs: Kwargs, expr: nodes.NodeNG, frame: Frame) -> Value:
        return args[0].element(tx, None, frame) if args else UNKNOWN

    def call_zip(self, tx: Interpreter, args: Args, kwargs: Kwargs, expr: nodes.NodeNG, frame: Frame) -> Value:
        if not args:
            return Seq([])
        seqs = [a.iterate(tx) for a in args]
        if all(s is not None for s in seqs):
            return Seq([Seq(list(group)) for group in zip(*seqs)])
        return Seq(None, elem=Seq([a.element(tx, None, frame) for a in args]))

    def call_enumerate(self, tx: Interpreter, args: Args, kwargs: Kwargs, expr: nodes.NodeNG,
                       frame: Frame) -> Value:
        if not args:
            return Seq([])
        items = args[0].iterate(tx)
        start = args[1] if len(args) > 1 else kwargs.get("start", Static(0))
        if items is not None and isinstance(start, Static) and isinstance(start.value, int):
            return Seq([Seq([derived(i, start), item]) for i, item in enumerate(items, start.value)])
        return Seq(None, elem=Seq([Static(), args[0].element(tx, None, frame)]))

    def call_map(self, tx: Interpreter, args: Args, kwargs: Kwargs, expr: nodes.NodeNG, frame: Frame) -> Value:
        """map(f, xs, ...) calls f on the items: item by item when they are known."""
        if len(args) < 2:
            return UNKNOWN
        zipped = self.call_zip(tx, args[1:], {}, expr, frame)
        if zipped.items is not None:
            return Seq([args[0].call(tx, group.items, {}, expr, frame) for group in zipped.items])
        return Seq(None, elem=args[0].call(tx, zipped.elem.items, {}, expr, frame))

    def call_filter(self, tx: Interpreter, args: Args, kwargs: Kwargs, expr: nodes.NodeNG,
                    frame: Frame) -> Value:
        """filter(pred, xs) tests pred(item) (or the item) for truth: on a tensor that is a
        data-dependent branch (GB0170, resumable: measured, val_iter_map_filter.py). Which
        items stay is not known here."""
        if len(args) != 2:
            return UNKNOWN
        predicate, source = args
        item = source.element(tx, None, frame)
        verdict = item if isinstance(predicate, Static) and predicate.value is None \
            else predicate.call(tx, [item], {}, expr, frame)
        if is_definite_tensor(verdict):
            tx.branch(verdict, expr, frame)
        return Seq(None, elem=item)

    def call_list(self, tx: Interpreter, args: Args, kwargs: Kwargs, expr: nodes.NodeNG, frame: Frame) -> Value:
        """list(), tuple(), reversed(), iter(): the same items, when they are known."""
        is_list = self.qname == "list"
        if not args:
            return Seq([], is_list=is_list)
        items = args[0].iterate(tx)
        if items is not None:
            return Seq(items[::-1] if self.qname == "reversed" else items, is_list=is_list)
        return Seq(None, elem=args[0].element(tx, expr, frame), is_list=is_list)

    call_tuple = call_reversed = call_iter = call_list

    def call_dict(self, tx: Interpreter, args: Args, kwargs: Kwargs, expr: nodes.NodeNG, frame: Frame) -> Value:
        return Dict(dict(kwargs), complete=not args)

    def call_super(self, tx: Interpreter, args: Args, kwargs: Kwargs, expr: nodes.NodeNG, frame: Frame) -> Value:
        function = frame.function
        receiver = frame.env.get(function.args.args[0].name) \
            if isinstance(function, nodes.FunctionDef) and function.args.args else None
        return Super(receiver or UNKNOWN, frame.cls)

    def call_isinstance(self, tx: Interpreter, args: Args, kwargs: Kwargs, expr: nodes.NodeNG,
                        frame: Frame) -> Value:
        """A tensor is a torch.Tensor; a known number, list or dict is tested against builtin
        classes; a class (a torch layer's too), a function or a module is none of Python's value
        types (transformers' `isinstance(content, tuple)` on the activation class a name maps to);
        the callable, iterable, function, partial and torch classes are decided by the kind of
        value (`library_type_test`)."""
        if len(args) == 2 and is_definite_tensor(args[0]) and isinstance(args[1], ClassRef) \
                and metaclass_method(tx.resolver, args[1].node, "__instancecheck__") is not None:
            return custom_instance_check(tx, args, expr, frame)
        if len(args) == 2 and is_definite_tensor(args[0]) and isinstance(args[1], External) \
                and args[1].qname in tables.TORCH_TENSOR_CLASSES:
            return Static(True)
        if len(args) == 2:
            kind, classes = python_kind(args[0]), container_classes(args[1])
            if kind is not None and classes is not None:
                return derived(issubclass(kind, classes), args[0])
        if len(args) == 2 and (isinstance(args[0], (ClassRef, Function, Module))
                               or isinstance(args[0], External) and is_torch_layer(args[0].qname)):
            types = args[1].items if isinstance(args[1], Seq) and args[1].items is not None else [args[1]]
            if all(isinstance(t, Builtin) and t.qname in tables.BUILTIN_VALUE_TYPES for t in types):
                return Static(False)
        if len(args) == 2:
            classes = args[1].items if isinstance(args[1], Seq) and args[1].items is not None else [args[1]]
            verdicts = [library_type_test(tx, args[0], c) for c in classes]
            if True in verdicts:
                return derived(True, args[0])
            if all(v is False for v in verdicts):
                return derived(False, args[0])
        return Static()

    def call_any(self, tx: Interpreter, args: Args, kwargs: Kwargs, expr: nodes.NodeNG, frame: Frame) -> Value:
        """any(t), all(t) over a tensor test each element for truth (GB0170, measured); over a
        list of tensor conditions they test each item (GB0170, measured). Over a generator of
        them (`any(row.sum() > 0 for row in x)`) dynamo then cannot rebuild the generator to
        resume: the frame runs eagerly (GB0170, then GB8335, measured). Over known Python
        values (`any([flag for flag in self.enabled])`) they are computed."""
        items = args[0].items if len(args) == 1 and isinstance(args[0], Seq) else None
        if items is not None and all(isinstance(v, Static) and v.known for v in items):
            return derived(getattr(builtins, self.qname)(v.value for v in items), *items)
        if len(args) == 1 and is_definite_tensor(args[0]):
            tx.branch(args[0], expr, frame)
        elif len(args) == 1 and isinstance(args[0], Seq) and is_definite_tensor(args[0].element_kind()):
            if over_generator(expr):
                node = tx.graph.call_function("bool", (args[0].element_kind().as_arg(),), meta=tx.meta(expr, frame))
                tx.graph_break(rules.DATA_DEPENDENT_BRANCH, node, expr, frame, eagerly=WhollyEagerly(frame.name, "a generator"))
            else:
                tx.branch(args[0].element_kind(), expr, frame)
        return Static()

    call_all = call_any

    def call_getattr(self, tx: Interpreter, args: Args, kwargs: Kwargs, expr: nodes.NodeNG,
                     frame: Frame) -> Value:
        if len(args) >= 2 and isinstance(args[1], Static) and isinstance(args[1].value, str):
            value = args[0].var_getattr(tx, args[1].value, expr, frame)
            if value is UNKNOWN and len(args) == 3:
                return args[2]
            return value
        return UNKNOWN

    def call_setattr(self, tx: Interpreter, args: Args, kwargs: Kwargs, expr: nodes.NodeNG,
                     frame: Frame) -> Value:
        """`setattr(self, f"layer{i}", block)`: an assignment to a name known statically."""
        if len(args) == 3 and isinstance(args[1], Static) and isinstance(args[1].value, str):
            args[0].store_attribute(tx, args[1].value, args[2], expr, frame)
        return Static(None)


def external(qname: str) -> Value:
    """The value of an outside name: a builtin when it has no module, a static value for a
    string torch holds."""
    if qname in tables.STATIC_ATTRIBUTES:
        return Static()
    return Builtin(qname) if "." not in qname else External(qname)


# The type tests a layer factory makes of its argument beyond Python's value types (timm's
# get_norm_layer: `isinstance(norm_layer, functools.partial)`; get_attn:
# `isinstance(attn_type, torch.nn.Module)`; to_2tuple: `isinstance(x, collections.abc.Iterable)`),
# by the kind of value each holds; a pair not here is not known.
CALLABLE_TYPES = frozenset({"typing.Callable", "collections.abc.Callable"})
ITERABLE_TYPES = frozenset({"typing.Iterable", "collections.abc.Iterable"})
FUNCTION_TYPES = frozenset({"types.FunctionType", "types.LambdaType"})
PARTIAL_TYPE = "functools.partial"


def library_type_test(tx: Interpreter, value: Value, cls: Value) -> bool | None:
    """isinstance(value, cls) for one of the classes above or a torch class, when the kind of
    `value` decides it: None or a known number, a class (a torch layer or a module class of the
    project), a def, a functools.partial; None when it does not (a text may stand for a dtype)."""
    if not isinstance(cls, External) or isinstance(cls, Builtin):
        return None
    name = cls.qname
    if isinstance(value, Static) and value.known and value.node is None \
            and isinstance(value.value, (int, float, complex, type(None))):
        # None or a number is no callable, no iterable and no torch object (`attn_type=None`)
        return False if name in CALLABLE_TYPES | ITERABLE_TYPES | FUNCTION_TYPES or name == PARTIAL_TYPE \
            or name.startswith("torch.") else None
    is_class = isinstance(value, External) and is_torch_layer(value.qname) \
        or isinstance(value, ClassRef) and tx.resolver.is_module_class(value.node)
    is_def = isinstance(value, Function) and value.bound is None and not getattr(value.node, "decorators", None)
    kind = "class" if is_class else "function" if is_def else "partial" if isinstance(value, Partial) else None
    if kind is None:
        return None
    if name in CALLABLE_TYPES:
        return True
    if name in FUNCTION_TYPES:
        return kind == "function"
    if name == PARTIAL_TYPE:
        return kind == "partial"
    return False if name in ITERABLE_TYPES else None


def over_generator(call: nodes.NodeNG) -> bool:
    """Is the call's only argument a generator expression (`any(x > 0 for x in xs)`)?"""
    return isinstance(call, nodes.Call) and len(call.args) == 1 and isinstance(call.args[0], nodes.GeneratorExp)


def custom_instance_check(tx: Interpreter, args: Args, expr: nodes.NodeNG, frame: Frame) -> Value:
    """`isinstance(x, Float)` where Float's metaclass defines `__instancecheck__` (jaxtyping,
    beartype): from 2.14 dynamo breaks on the check of a tensor (GB2736); 2.13 ran the check and
    traced one branch (ver_instancecheck_meta.py). Either way the outcome is not known here."""
    moved, version = tables.CUSTOM_INSTANCE_CHECK_BREAKS, tx.options.torch_version
    if moved.at(version) is not None:
        node = tx.graph.python_call("isinstance", as_args(args), meta=tx.meta(expr, frame))
        tx.graph_break(rules.CUSTOM_INSTANCE_CHECK, node, expr, frame, gb_ids=moved.at(version),
                       versions=moved.span(version))
    return Static()


def closes_over_locals(function: Value) -> bool:
    """Is `function` a lambda or def that reads a variable of the function it was made in
    (`lambda i: self.priority[i]`)?"""
    if not isinstance(function, Function) or function.closure is None:
        return False
    own = set(function.node.argnames())
    return any(name.name in function.closure.env and name.name not in own
               for name in function.node.nodes_of_class(nodes.Name))


def run_key(tx: Interpreter, args: Args, kwargs: Kwargs, expr: nodes.NodeNG, frame: Frame) -> Value | None:
    """sorted/min/max run their key function on each item: a break in it breaks here. The key's
    value for an item; None without a key the analysis can run."""
    key = kwargs.get("key")
    if isinstance(key, Function) and args:
        return key.call(tx, [args[0].element(tx, None, frame)], {}, expr, frame)
    return None


# isinstance decided on known values against these only: a dtype or device may be known as its name.
_CONTAINER_CLASSES = {"tuple": tuple, "list": list, "dict": dict, "int": int, "float": float, "bool": bool}


def python_kind(value: Value) -> type | None:
    """The Python type of a value known statically (`cast_tuple(32, 3)`'s `isinstance(t, tuple)`),
    or None."""
    if isinstance(value, Static) and value.known and value.node is None and not isinstance(value.value, str):
        return type(value.value)
    if isinstance(value, Seq) and value.is_list:  # a Seq that is no list may be a range or zip as well as a tuple
        return list
    if isinstance(value, Dict):
        return dict
    return None


def container_classes(value: Value) -> tuple[type, ...] | None:
    """The classes of isinstance's second argument, when each is one of _CONTAINER_CLASSES."""
    values = value.items if isinstance(value, Seq) and value.items is not None else [value]
    classes = [_CONTAINER_CLASSES.get(v.qname) if isinstance(v, Builtin) else None for v in values]
    return tuple(classes) if values and None not in classes else None


# Python values dynamo 2.13 passes to a reorderable logging function (a ConstantVariable).
CONSTANT_TYPES = (str, int, float, bool, type(None))


def _reorderable_print(expr: nodes.NodeNG, args: Args, kwargs: Kwargs) -> bool:
    """A print dynamo would reorder after the graph, in the form `fix` keeps it by registering it
    (fix/guard.py, unreorderable_argument): each argument a string or number literal or a tensor,
    only `sep`/`end` as keywords."""
    if not isinstance(expr, nodes.Call) or any(isinstance(arg, nodes.Starred) for arg in expr.args) \
            or any(keyword.arg not in ("sep", "end") for keyword in expr.keywords or ()):
        return False
    return reorderable(args, kwargs) and all(isinstance(arg, nodes.Const) or isinstance(value, Tensor)
                                             for arg, value in zip(expr.args, args))


def reorderable(args: Args, kwargs: Kwargs) -> bool:
    """Does dynamo reorder a call of a registered logging function with these arguments after
    the graph? It does where each is a tensor or a constant (DebuggingVariable.can_reorder_logs;
    measured with print: a torch.Size argument breaks, GB0296). A number the analysis cannot
    tell from a shape (symbolic once shapes are dynamic) does not count, nor a number `.item()`
    captured (capture_scalar_outputs: a symbolic number, which breaks, measured); a value
    assumed to be a tensor (a `weak` one, an unannotated input) counts as one, as it does for
    the graph."""
    return all(isinstance(value, Tensor) and not value.scalar or isinstance(value, Static) and value.known
               and value.node is None and isinstance(value.value, CONSTANT_TYPES) for value in [*args, *kwargs.values()])
