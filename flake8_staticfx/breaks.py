"""Graph breaks: the one table of breaking calls.

A break is raised where it is detected (`Interpreter.graph_break(rule, node, expr, frame)`),
naming its rule from `rules.py`; interpret/resume.py decides what dynamo does after it and
records it. Breaks shaped like a call of a named function (`print(...)`, `torch.nonzero(...)`,
`copy.deepcopy(...)`) are declared here instead, each with the predicate that says which call
forms break and what the call gives the code after it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import rules
from .ir import Node
from .rules import Rule
from .torch_versions import ByVersion, since
from .values import (
    UNKNOWN,
    Dict,
    Instance,
    NdArray,
    Seq,
    Static,
    Tensor,
    Value,
    is_definite_tensor,
    is_module,
)
from .values.tensors import tensor_repeats


# -- predicates: which call forms break ------------------------------------------------


def always(args: list[Value], kwargs: dict[str, Value]) -> bool:
    """Every call breaks."""
    return True


def on_tensor(args: list[Value], kwargs: dict[str, Value]) -> bool:
    """Breaks when the first argument is a tensor: its value is needed in Python (GB0033).
    On a Python number the call is plain Python."""
    return bool(args) and is_definite_tensor(args[0])


def one_argument(args: list[Value], kwargs: dict[str, Value]) -> bool:
    """`torch.where(condition)` is `nonzero(as_tuple=True)`: its output shape depends on the
    data (GB0036). `torch.where(condition, a, b)` is elementwise and traces."""
    return len(args) + len(kwargs) == 1


def no_size_argument(args: list[Value], kwargs: dict[str, Value]) -> bool:
    """`np.random.rand()`, `np.random.randn()`: no size, so a Python number (GB0033)."""
    return not args and not kwargs


def _size_missing(args: list[Value], kwargs: dict[str, Value], position: int) -> bool:
    """Is the `size` argument (at `position`, or by keyword) left out, or None?"""
    size = args[position] if len(args) > position else kwargs.get("size")
    return size is None or isinstance(size, Static) and size.known and size.value is None


def no_size_first(args: list[Value], kwargs: dict[str, Value]) -> bool:
    """`np.random.random(size=None)` (`random_sample`, `sample`): a Python number without a size."""
    return _size_missing(args, kwargs, 0)


def no_size_third(args: list[Value], kwargs: dict[str, Value]) -> bool:
    """`np.random.uniform(low, high, size=None)` (`normal`, `randint`): a Python number without a size."""
    return _size_missing(args, kwargs, 2)


def no_class_count(args: list[Value], kwargs: dict[str, Value]) -> bool:
    """`F.one_hot(labels)` (or `num_classes` -1 by position) sizes its output from the labels'
    values: dynamo 2.13 refuses it (GB0246, measured); with a class count it traces."""
    count = args[1] if len(args) == 2 else None
    return len(args) + len(kwargs) == 1 or (isinstance(count, Static) and count.known and count.value == -1)


def tensor_lengths(args: list[Value], kwargs: dict[str, Value]) -> bool:
    """`ctc_loss` with tensor `input_lengths`/`target_lengths` reads them in Python (GB0036);
    with lists or tuples of ints it traces."""
    lengths = [*args[2:4], kwargs.get("input_lengths"), kwargs.get("target_lengths")]
    return any(isinstance(v, Tensor) for v in lengths)


def copies_module_or_tensor(args: list[Value], kwargs: dict[str, Value]) -> bool:
    """`copy.deepcopy` of a module or a tensor breaks (GB4198 for a module, GB0208 inside
    copy.py for a tensor); of a list, dict or number dynamo traces the copy."""
    return bool(args) and (is_module(args[0]) or is_definite_tensor(args[0]))


# -- what the code after the call sees --------------------------------------------------


def static_result(node: Node, args: list[Value], qname: str) -> Value:
    return Static()


def none_result(node: Node, args: list[Value], qname: str) -> Value:
    return Static(None)


def unknown_result(node: Node, args: list[Value], qname: str) -> Value:
    return UNKNOWN


def tensor_result(node: Node, args: list[Value], qname: str) -> Value:
    return Tensor(node)


def sparse_result(node: Node, args: list[Value], qname: str) -> Value:
    """A sparse tensor made by a call dynamo skips: it is no graph node."""
    return Tensor(None, sparse=True)


def copy_result(node: Node, args: list[Value], qname: str) -> Value:
    return args[0] if is_module(args[0]) else Tensor(node)


def wrapped_iterable(node: Node, args: list[Value], qname: str) -> Value:
    """A progress bar yields the items of the iterable it wraps."""
    return args[0] if args else UNKNOWN


def wrapped_tensor(node: Node, args: list[Value], qname: str) -> Value:
    """`Variable(t)` is `t` again: the call runs eagerly, so it is no graph node of its own."""
    return args[0] if args and isinstance(args[0], Tensor) else Tensor(None)


def generator_result(node: Node, args: list[Value], qname: str) -> Value:
    return Instance(qname)


def array_otherwise(args: list[Value]) -> Value:
    """A numpy array of random data, traced as a tensor."""
    return NdArray(holds_data=True)


def none_otherwise(args: list[Value]) -> Value:
    return Static(None)


def copy_otherwise(args: list[Value]) -> Value:
    """The copy of a Python value is that value, as far as the analysis can tell."""
    return args[0] if args and isinstance(args[0], (Static, Dict, Seq)) else UNKNOWN


@dataclass(frozen=True)
class BreakingCall:
    """A function whose call breaks the graph when `breaks` holds for the call's arguments."""

    rule: Rule
    result: Callable[[Node, list[Value], str], Value] = static_result
    breaks: Callable[[list[Value], dict[str, Value]], bool] = always
    # What the call gives when `breaks` does not hold; None: the ordinary call.
    otherwise: Callable[[list[Value]], Value] | None = None
    in_graph: bool = False  # the node is a graph op (call_function), not a Python-side call
    gb_ids: tuple[str, ...] = ()  # of the occurrence, when the rule's default does not say it
    # A break that moved between torch releases: its GB ids in each, None where it does not break.
    moved: ByVersion | None = None
    # Why dynamo runs the rest of the frame eagerly after the call, if it does (RestEagerly).
    rest_eagerly: str = ""

    def gb_ids_in(self, version: str) -> tuple[str, ...] | None:
        """The GB ids of the call's break in torch `version`; None when it does not break there."""
        return self.gb_ids if self.moved is None else self.moved.at(version)

    def versions(self, version: str) -> str:
        """The releases that break as `version` does, when not all do ('torch 2.13 only')."""
        return self.moved.span(version) if self.moved is not None else ""
    # `breaks` reads which arguments are given: a call spreading `*args` or `**kwargs` the
    # analysis cannot see is not decided, and is no break (`np.random.randn(*x.shape)`).
    reads_arguments_given: bool = False


SKIPPED = BreakingCall(rules.SKIPPED_FUNCTION_CALL)
NON_TENSOR_RESULT = BreakingCall(rules.SKIPPED_FUNCTION_CALL, gb_ids=("GB0208",))
UNSUPPORTED_INSIDE = BreakingCall(rules.SKIPPED_FUNCTION_CALL, unknown_result, gb_ids=("GB0156",))
LOGGER = BreakingCall(rules.LOGGER_CALL, none_result)
DYNAMIC_SHAPE = BreakingCall(rules.DYNAMIC_OUTPUT_SHAPE, tensor_result, in_graph=True)
AUTOGRAD = BreakingCall(rules.AUTOGRAD_IN_FORWARD, tensor_result, in_graph=True)
UNTRACEABLE = BreakingCall(rules.UNTRACEABLE_BUILTIN, unknown_result)
# numpy.random: dynamo traces the draws torch._numpy.random implements, as tensor ops; a draw
# without a size gives a Python number made from a tensor (GB0033), one with a size an array;
# choice reads its data with a size too (GB0033: val_numpy_array_item.py).
# Every other numpy.random function is a numpy function torch lacks (GB0294: np.random.permutation).
# Measured with 2.13: val_numpy_random_ids.py.
NUMPY_RANDOM_UNSUPPORTED = BreakingCall(rules.DATA_DEPENDENT_OPERATOR, unknown_result, gb_ids=("GB0294",))


def numpy_draw(without_size: Callable[[list[Value], dict[str, Value]], bool]) -> BreakingCall:
    """A torch._numpy.random draw, which breaks when `without_size` says it gives a number."""
    return BreakingCall(rules.DATA_DEPENDENT_OPERATOR, unknown_result, without_size, array_otherwise,
                        reads_arguments_given=True)


NUMPY_DRAWS = {
    **{f"numpy.random.{name}": numpy_draw(no_size_argument) for name in ("rand", "randn")},
    **{f"numpy.random.{name}": numpy_draw(no_size_first) for name in ("random", "random_sample", "sample")},
    "numpy.random.choice": BreakingCall(rules.DATA_DEPENDENT_OPERATOR, unknown_result),
    **{f"numpy.random.{name}": numpy_draw(no_size_third) for name in ("uniform", "normal", "randint")},
    # in place on an array, but a list raises inside torch._numpy: not measured, kept a break
    "numpy.random.shuffle": BreakingCall(rules.DATA_DEPENDENT_OPERATOR, unknown_result),
}
# math.sqrt(t) and friends need the tensor's value as a Python float.
MATH_ON_TENSOR = BreakingCall(rules.DATA_DEPENDENT_OPERATOR, breaks=on_tensor, otherwise=none_otherwise)

BREAKING_CALLS: dict[str, BreakingCall] = {
    "torch._dynamo.graph_break": BreakingCall(rules.EXPLICIT_GRAPH_BREAK),
    "torch.autograd.grad": AUTOGRAD,
    "torch.autograd.backward": AUTOGRAD,
    # From 2.14 a module's copy names GB0116 (measured: moco_momentum.py), a tensor's GB4198.
    "copy.deepcopy": BreakingCall(rules.COPY_IN_FORWARD, copy_result, copies_module_or_tensor,
                                  copy_otherwise, in_graph=True,
                                  moved=since("2.14", ("GB4198", "GB0208"), ("GB0116", "GB4198"))),
    "copy.copy": SKIPPED,  # of a list or dict: GB0007 (of a tensor: GB0208 in copy.py)
    "torch.nonzero": DYNAMIC_SHAPE,
    "torch.masked_select": DYNAMIC_SHAPE,
    "torch.unique": DYNAMIC_SHAPE,
    "torch.unique_consecutive": DYNAMIC_SHAPE,
    "torch.argwhere": DYNAMIC_SHAPE,
    # Measured: unruled_breaks.py (torch.linalg.solve traces). With capture_dynamic_output_shape_ops
    # it still breaks, as an operator without a meta kernel (GB0037), which the rule does not say.
    "torch.linalg.lstsq": DYNAMIC_SHAPE,
    "torch.bincount": DYNAMIC_SHAPE,
    "torch.where": BreakingCall(rules.DYNAMIC_OUTPUT_SHAPE, tensor_result, one_argument, in_graph=True),
    "torch.repeat_interleave": BreakingCall(rules.DYNAMIC_OUTPUT_SHAPE, tensor_result, tensor_repeats,
                                            in_graph=True),
    "torch.nn.functional.one_hot": BreakingCall(rules.DYNAMIC_OUTPUT_SHAPE, tensor_result, no_class_count,
                                                in_graph=True, gb_ids=("GB0246",)),
    "torch.nn.functional.ctc_loss": BreakingCall(rules.DYNAMIC_OUTPUT_SHAPE, tensor_result, tensor_lengths,
                                                 in_graph=True),
    "warnings.warn": SKIPPED,
    # Skipped (GB0007, measured: skipped_library_calls.py); `warnings.catch_warnings()` itself
    # traces, so yolov5's SPPF breaks at the filter inside the `with` (then GB0092: the whole
    # forward runs eagerly).
    "warnings.simplefilter": SKIPPED,
    "warnings.filterwarnings": SKIPPED,
    # tqdm is on dynamo's THIRDPARTY_SKIPLIST: making the bar is skipped (GB0007), and iterating
    # it skips the resumed rest of the frame (GB0008), which runs eagerly (measured:
    # skipped_library_calls.py). Other packages of that list keep their meaning from the tables.
    **{f"tqdm.{name}": BreakingCall(rules.SKIPPED_FUNCTION_CALL, wrapped_iterable,
                                    rest_eagerly="a tqdm progress bar") for name in ("tqdm", "auto.tqdm", "std.tqdm")},
    # A compiled extension function: dynamo skips it (GB0007, measured with detr's matcher). By its
    # public name, and by the extension module's that an installed scipy's __init__ re-exports.
    **{f"scipy.optimize.{module}linear_sum_assignment": BreakingCall(rules.SKIPPED_FUNCTION_CALL, unknown_result)
       for module in ("", "_lsap.")},
    # The old autograd wrapper of model code (pointnet.pytorch, waveglow): dynamo skips the
    # class call (GB0007, measured: skipped_variable_wrapper.py in 2.13, 2.14 and 2.15).
    **{name: BreakingCall(rules.SKIPPED_FUNCTION_CALL, wrapped_tensor, gb_ids=("GB0007",))
       for name in ("torch.autograd.Variable", "torch.autograd.variable.Variable")},
    "sys._getframe": SKIPPED,
    "torch.manual_seed": SKIPPED,
    "torch.random.manual_seed": SKIPPED,
    "torch.seed": SKIPPED,
    "torch.initial_seed": SKIPPED,  # GB0208: a torch op that returns no tensor
    # Dtype queries dynamo does not fold (unlike promote_types, finfo, is_floating_point):
    # "torch.* op returned non-Tensor" (GB0208, measured), even on constant dtypes.
    "torch.result_type": NON_TENSOR_RESULT,
    "torch.can_cast": NON_TENSOR_RESULT,
    "torch.is_same_size": NON_TENSOR_RESULT,  # measured: cfg_tensor_equal.py
    "torch.save": SKIPPED,
    "inspect.currentframe": SKIPPED,
    "inspect.stack": SKIPPED,
    "inspect.getframeinfo": SKIPPED,
    "inspect.getouterframes": SKIPPED,
    "inspect.trace": SKIPPED,
    "traceback.format_stack": SKIPPED,  # measured: cfg_skipped_stdlib.py
    "pdb.set_trace": SKIPPED,
    "unittest.skip": SKIPPED,  # dynamo skips the unittest directory (measured: unruled_breaks.py)
    "os.getpid": SKIPPED,
    # Skipped by 2.13 (the random module was on BUILTIN_SKIPLIST); traced from 2.14, as
    # random.randint is (tables.TRACED_RANDOM_FUNCTIONS). Measured: ver_moved_breaks.py.
    "random.random": BreakingCall(rules.SKIPPED_FUNCTION_CALL, moved=since("2.14", ("GB0007",), None)),
    "random.choice": SKIPPED,
    "torch.nn.utils.rnn.pack_padded_sequence": SKIPPED,
    "torch.nn.utils.rnn.pad_packed_sequence": SKIPPED,
    "torch.nn.utils.rnn.pack_sequence": SKIPPED,
    # The file-system queries of genericpath, which dynamo skips (GB0007, measured for exists).
    **{f"os.path.{name}": SKIPPED for name in ("exists", "isfile", "isdir", "getsize", "getmtime")},
    # Dynamo traces into these and meets a method it does not support (GB0156, measured);
    # re.match on a constant pattern and string traces.
    "json.dumps": UNSUPPORTED_INSIDE,
    # 2.13 does not support the method (GB0156); 2.14 reads the variable (ver_fixed_after_213.py).
    "contextvars.ContextVar.get": BreakingCall(rules.SKIPPED_FUNCTION_CALL, unknown_result,
                                               moved=since("2.14", ("GB0156",), None)),
    "datetime.datetime.now": UNSUPPORTED_INSIDE,
    "torch.Generator": BreakingCall(rules.GENERATOR_IN_FORWARD, generator_result),
    # torch.equal and torch.allclose give a Python bool: the tensors' values are needed
    # (GB0033, measured; val_tensor_checks.py, val_any_generators.py).
    "torch.equal": BreakingCall(rules.DATA_DEPENDENT_OPERATOR, breaks=on_tensor),
    "torch.allclose": BreakingCall(rules.DATA_DEPENDENT_OPERATOR, breaks=on_tensor),
    # GB0007, then GB0015 wrapping the sparse result (measured; cfg_sparse_tensors.py).
    "torch.sparse_coo_tensor": BreakingCall(rules.SKIPPED_FUNCTION_CALL, sparse_result),
    # torch.fx records torch._assert as a call_function node. 2.15 traces it on a tensor (no
    # break; measured: assert_detection_ops.py, box_validation.py).
    "torch._assert": BreakingCall(rules.DATA_DEPENDENT_OPERATOR, breaks=on_tensor, otherwise=none_otherwise,
                                  in_graph=True, moved=since("2.15", ("GB0033",), None)),
    "torch._check_tensor_all": BreakingCall(rules.TENSOR_TO_PYTHON_SCALAR, breaks=on_tensor,
                                            otherwise=none_otherwise),
    # Module-level logging functions reach the root logger, which dynamo cannot trace (GB4841).
    **{f"logging.{name}": LOGGER for name in ("debug", "info", "warning", "error", "critical", "exception",
                                              "log")},
    # Builtins dynamo cannot trace (GB0059).
    **{name: UNTRACEABLE for name in ("print", "breakpoint", "open", "input")},
    **NUMPY_DRAWS,
}
# Whole modules whose functions dynamo skips (GB0007), less the ones it traces. Not
# `random.`: dynamo traces random.randint (a graph input) but skips random.random.
SKIPPED_PREFIXES = ("time.",)
TRACED_FUNCTIONS = frozenset({"time.struct_time"})


def breaking_call(qname: str, args: list[Value], version: str) -> BreakingCall | None:
    """The breaking call `qname` is in torch `version`, if it is one."""
    call = BREAKING_CALLS.get(qname)
    if call is not None:
        return call if call.gb_ids_in(version) is not None else None
    if qname.startswith(SKIPPED_PREFIXES) and qname not in TRACED_FUNCTIONS:
        return SKIPPED
    if qname.startswith("numpy.random.") and qname != "numpy.random.seed":
        return NUMPY_RANDOM_UNSUPPORTED
    if qname.startswith("math.") and any(is_definite_tensor(a) for a in args):
        return MATH_ON_TENSOR
    return None
