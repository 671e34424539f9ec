"""The one table of diagnostics: every SFX code, what dynamo says there, and the fix.

Each rule is a named constant; the interpreter raises a break at its detection site by
naming the constant: `tx.graph_break(rules.<NAME>, node, expr, frame)`.

Families by hundred: 1xx data-dependent values, 2xx side effects and I/O, 3xx features
dynamo does not trace, 4xx dynamic shapes, 5xx recompilations over the calls the project's own
code makes (recompiles/), 9xx notices about the analysis itself.
"""
from __future__ import annotations

from dataclasses import dataclass

GB_DOCS = "https://meta-pytorch.github.io/compile-graph-break-site/gb/{}.html"


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    gb_ids: tuple[str, ...]
    # The first words of each message of this code, the same for every occurrence (flake8
    # --statistics shows one message per code): what kind of construct breaks the graph.
    summary: str
    fix: str  # the short workaround that ends each message
    workaround: str  # the full workaround: rule pages, the graph CLI, JSON
    fixable: bool = True
    enabled_by_default: bool = True
    # Dynamo settings under which the construct is captured instead of breaking.
    captured_by: tuple[str, ...] = ()
    # The setting (an Options field) that lists the functions dynamo is told to drop.
    ignored_by: str = ""
    # The GB ids an occurrence names when its detection site names none (default: all).
    occurrence_gb_ids: tuple[str, ...] = ()

    @property
    def default_gb_ids(self) -> tuple[str, ...]:
        return self.occurrence_gb_ids or self.gb_ids

    @property
    def docs_url(self) -> str:
        return GB_DOCS.format(self.gb_ids[0].lower()) if self.gb_ids else ""


@dataclass(frozen=True)
class Advice:
    """The workaround for one form of a rule's construct, where the rule's own does not remove
    the break (advice.py picks it; each is checked against dynamo, tests/test_advice.py)."""

    fix: str  # the short form that ends the message, in place of the rule's
    workaround: str  # the full form


DATA_DEPENDENT_BRANCH = Rule(
    "SFX101",
    "data-dependent-branch",
    ("GB0170",),
    "branch on a tensor's value",
    "select with torch.where or torch.cond",
    "compute both branches and select with torch.where, or use torch.cond",
)

TENSOR_TO_PYTHON_SCALAR = Rule(
    "SFX102",
    "tensor-to-python-scalar",
    ("GB0124", "GB0033"),
    "tensor converted to a Python number",
    "keep it a 0-d tensor",
    "keep the value as a 0-d tensor, or set torch._dynamo.config.capture_scalar_outputs = True",
    captured_by=("capture_scalar_outputs", "fullgraph"),
    occurrence_gb_ids=("GB0124",),  # .item(), int(), `in`; a size detected as one says GB0033
)

TENSOR_TOLIST = Rule(
    "SFX103",
    "tensor-tolist",
    ("GB0033", "GB0109"),
    "tensor copied into a Python list",
    "keep the data in tensors",
    "keep the data in tensors (torch.split/gather with tensor indices) or move the call out of forward",
    # Integer tensors are captured; float ones still break (GB0109) but the dtype is
    # rarely known statically, so the rule stays quiet under these settings.
    captured_by=("capture_scalar_outputs", "fullgraph"),
)

DATA_DEPENDENT_OPERATOR = Rule(
    "SFX104",
    "data-dependent-operator",
    ("GB0033", "GB6622", "GB0294"),
    "tensor value needed in Python",
    "stay in tensor ops (torch.sqrt, not math.sqrt)",
    "stay in tensor ops (torch.sqrt instead of math.sqrt, torch._assert_async instead of "
    "torch._assert, torch.rand instead of numpy.random, torch.randperm instead of "
    "numpy.random.permutation, which torch._numpy lacks: GB0294); compare a list of sizes with "
    "Python ints, not with a tensor (GB6622)",
    occurrence_gb_ids=("GB0033",),
)

RANDOM_NUMBER_ARITHMETIC = Rule(
    "SFX105",
    "random-number-arithmetic",
    ("GB0213",),
    "Python arithmetic on a random number",
    "draw it with torch.rand or torch.randint",
    "draw it with torch (torch.randint, torch.rand) or outside the compiled function",
)

CAUSAL_MASK_CHECK = Rule(
    "SFX106",
    "causal-mask-check",
    ("GB0124",),
    "attention mask tested for causality",
    "pass is_causal=True or False with the mask",
    "pass `is_causal=True` (or `False`) with the mask: nn.TransformerEncoder, nn.TransformerDecoder "
    "and nn.Transformer otherwise compare an (S, S) mask with a causal one and take the result's "
    "Python bool, a tensor's value",
    fixable=False,
)

UNTRACEABLE_BUILTIN = Rule(
    "SFX201",
    "untraceable-builtin",
    ("GB0059", "GB0569", "GB0124"),
    "builtin dynamo cannot trace",
    "guard it with torch.compiler.is_compiling()",
    "remove it from forward, or guard it with `if not torch.compiler.is_compiling():`",
    occurrence_gb_ids=("GB0059", "GB0569"),  # range() of a tensor from 2.14 names GB0124
)

LOGGER_CALL = Rule(
    "SFX202",
    "logger-call",
    ("GB0291", "GB4841"),
    "logging call",
    "guard it with torch.compiler.is_compiling()",
    "guard it with `if not torch.compiler.is_compiling():`, or list the function in "
    "torch._dynamo.config.ignore_logger_methods",
    ignored_by="ignore_logging_functions",
)

SKIPPED_FUNCTION_CALL = Rule(
    "SFX203",
    "skipped-function-call",
    ("GB0007", "GB0208", "GB0156", "GB0008"),
    "call to a function dynamo skips",
    "move it out of the compiled code",
    "move it out of forward, or guard it with `if not torch.compiler.is_compiling():`",
    occurrence_gb_ids=("GB0007", "GB0208"),  # the stdlib calls that fail inside (GB0156) say so
)

EXPLICIT_GRAPH_BREAK = Rule(
    "SFX301",
    "explicit-graph-break",
    ("GB0025", "GB4636", "GB0275"),
    "explicit graph break",
    "remove it if the break is no longer needed",
    "remove the call if the break is no longer needed",
    occurrence_gb_ids=("GB0025",),  # torch._dynamo.graph_break(); step_unsupported() names its own
)

COMPILER_DISABLED_CALL = Rule(
    "SFX302",
    "compiler-disabled-call",
    ("GB0098", "GB0099", "GB0007", "GB0377"),
    "call to a compiler-disabled function",
    "call it outside the compiled code",
    "call it outside the compiled region, or remove the decorator",
    occurrence_gb_ids=("GB0098", "GB0099"),  # a wrapper made in the region names its own (by release)
)

AUTOGRAD_IN_FORWARD = Rule(
    "SFX303",
    "autograd-in-forward",
    ("GB0123", "GB9186"),
    "autograd call in compiled code",
    "compute gradients outside the compiled code",
    "compute gradients outside the compiled forward, or set "
    "torch._dynamo.config.trace_autograd_ops = True",
)

REQUIRES_GRAD_MUTATION = Rule(
    "SFX304",
    "requires-grad-mutation",
    ("GB0125", "GB8985", "GB0206", "GB0225"),
    "requires_grad set in compiled code",
    "set it before the compiled call",
    "create the tensor or set requires_grad before calling the compiled module, "
    "or detach and clone instead",
)

COPY_IN_FORWARD = Rule(
    "SFX305",
    "copy-in-forward",
    ("GB4198", "GB0208", "GB0116"),
    "copy of a module or tensor",
    "make the copy in __init__",
    "make the copy in __init__ or outside the compiled call",
    occurrence_gb_ids=("GB4198", "GB0208"),  # of a module from 2.14: GB0116
)

RNN_MODULE = Rule(
    "SFX306",
    "rnn-module",
    ("GB0014", "GB0148"),
    "RNN/GRU/LSTM module call",
    "unroll with GRUCell/LSTMCell, or keep it uncompiled",
    "unroll with nn.GRUCell/nn.LSTMCell, or keep the recurrent module outside torch.compile",
    fixable=False,
)

MIN_MAX_KEY = Rule(
    "SFX315",
    "min-max-key",
    ("GB0193", "GB5687"),
    "min()/max() with a key",
    "stack, then index_select the argmax()",
    "stack the candidates and pick with `index_select(0, scores.argmax().reshape(1))` (indexing with "
    "the 0-d argmax itself needs its value, GB0033), or choose outside the compiled code; torch "
    "2.13 breaks on a key computing a tensor or a lambda reading local variables (GB0193), 2.14 "
    "and later on a key computing a tensor (GB5687)",
    fixable=False,
)

CUSTOM_INSTANCE_CHECK = Rule(
    "SFX316",
    "custom-instance-check",
    ("GB2736",),
    "isinstance() with a custom type check",
    "test x.dim() or x.shape directly",
    "test the tensor's dim, shape or dtype directly instead of a class whose metaclass defines "
    "__instancecheck__ (jaxtyping, beartype annotations), or check outside the compiled code; "
    "torch 2.14 and later break there, 2.13 ran the check",
    fixable=False,
)

COMPREHENSION_OVER_ITERATOR = Rule(
    "SFX317",
    "comprehension-iterator",
    ("GB4347", "GB9493"),
    "comprehension over a list, dict or zip",
    "iterate over a tuple(...)",
    "iterate over a tuple (`tuple(d.items())`, `tuple(zip(a, b))`): once dynamo gives up on the "
    "function, it compiles each comprehension that reads a tensor or module as a frame of its "
    "own, and cannot step the iterator of a list, dict, set, zip or enumerate there (a tuple's, "
    "a range's or a tensor's it can); or remove the earlier break that made it give up",
    captured_by=("fullgraph",),  # no function is given up on: the first break fails the compile
    fixable=False,
)

PASSED_ITERATOR = Rule(
    "SFX318",
    "passed-iterator",
    ("GB0811", "GB9493"),
    "iterating an iterator passed in",
    "pass a tuple (`tuple(zip(a, b))`)",
    "the callers pass the compiled function a zip, an enumerate or a dict view (`d.items()`): dynamo "
    "wraps it as an object it cannot step, and breaks where the function iterates it (a `for` loop "
    "gives up on the whole function; `list(...)`, `tuple(...)` split the graph); pass "
    "`tuple(zip(a, b))` or `tuple(d.items())`, whose items dynamo reads one by one",
    fixable=False,
)

SORTED_OVER_TENSOR = Rule(
    "SFX307",
    "sorted-over-tensor",
    ("GB0059",),
    "sorted() over a tensor",
    "use torch.sort or torch.topk",
    "use torch.sort or torch.topk",
)

UNSUPPORTED_CONTEXT_MANAGER = Rule(
    "SFX308",
    "unsupported-context-manager",
    ("GB0142", "GB0208", "GB6815", "GB0007"),
    "unsupported context manager",
    "enter it outside the compiled code",
    "enter the context outside the compiled function",
    fixable=False,
    occurrence_gb_ids=("GB0142", "GB0208"),  # a config.patch from 2.14: GB6815 or GB0007
)

GENERATOR_IN_FORWARD = Rule(
    "SFX309",
    "generator-in-forward",
    ("GB0363", "GB7650", "GB0055"),
    "torch.Generator made in compiled code",
    "create it outside the compiled code",
    "create the generator outside the compiled function, or seed the global RNG before calling it",
)

BREAK_IN_LOCAL_OBJECT = Rule(
    "SFX310",
    "break-in-local-object",
    ("GB0092",),
    "break in a method of a local object",
    "make the object in __init__",
    "make the object in __init__ (or outside the compiled call), or remove the break in its method",
)

CLASS_IN_COMPILED_CODE = Rule(
    "SFX311",
    "class-in-compiled-code",
    ("GB8977",),
    "class defined in compiled code",
    "define the class at module level",
    "define the class at module level (or in __init__'s module), and only instantiate it in forward",
)

SPARSE_TENSOR = Rule(
    "SFX312",
    "sparse-tensor",
    ("GB0015", "GB0277"),
    "sparse tensor in compiled code",
    "keep it dense, or use it outside the compiled code",
    "keep the tensor dense (index_put/scatter_add into a dense tensor), or make and use the "
    "sparse tensor outside the compiled function",
    fixable=False,
    occurrence_gb_ids=("GB0015",),  # making one with Tensor.to_sparse() names GB0277
)

SIDE_EFFECT_IN_CHECKPOINT = Rule(
    "SFX313",
    "side-effect-in-checkpoint",
    ("GB4413", "GB0067"),
    "side effect in a checkpointed function",
    "return the value instead of storing it",
    "return what the checkpointed function computes instead of setting a module attribute or "
    "appending to a list from outside it; dynamo cannot replay the side effect on recompute",
    fixable=False,
    occurrence_gb_ids=("GB4413",),  # appending to an outer list names GB0067
)

METACLASS_CALL_RERUN = Rule(
    "SFX314",
    "metaclass-call-rerun",
    ("GB0006",),
    "metaclass __call__ reached type.__call__",
    "build the object outside the compiled code",
    "build the object outside the compiled code, or remove the break in its __init__: the "
    "construction reruns eagerly and dynamo cannot call `type.__call__` from the metaclass",
    fixable=False,
)

DYNAMIC_OUTPUT_SHAPE = Rule(
    "SFX401",
    "dynamic-output-shape",
    ("GB0036", "GB0246"),
    "dynamic output shape",
    "use masked_fill/torch.where or nonzero_static",
    "use a fixed-size form (torch.where(mask, x, 0), masked_fill, nonzero_static) or set "
    "torch._dynamo.config.capture_dynamic_output_shape_ops = True",
    captured_by=("capture_dynamic_output_shape_ops", "fullgraph"),
    occurrence_gb_ids=("GB0036",),  # F.one_hot without a class count names GB0246
)

PYTHON_CONSTANT_INPUT = Rule(
    "SFX501",
    "python-constant-input",
    (),
    "Python constant recompiles per value",
    "pass a 0-d tensor, or keep the value fixed",
    "an int in range(), a list index, F.dropout's p, a string, a function or an int module attribute "
    "stays a constant of the graph (even with dynamic=True): pass a 0-d tensor and use tensor ops, "
    "store a per-value tensor, or keep the value fixed between calls",
    fixable=False,
)

COUNTER_IN_FORWARD = Rule(
    "SFX502",
    "counter-in-forward",
    (),
    "counter attribute recompiles every call",
    "keep the count in a buffer updated in place",
    "an int module attribute is static to dynamo: count in a buffer (`self.step.add_(1)`) or "
    "outside the compiled module; a list attribute forward appends to is guarded on its length: "
    "return the values instead of keeping them on the module",
    fixable=False,
)

PER_BLOCK_CONSTANT = Rule(
    "SFX503",
    "per-block-constant",
    (),
    "per-block constant recompiles per block",
    "store it as a tensor, or compile the whole model",
    "each block compiled on its own (regional compilation, or a graph break in the layer loop) "
    "shares one forward whose guards check the block's own int or float: store it as a tensor "
    "buffer, give every block the same value, or compile the whole model",
    fixable=False,
)

CHANGING_SHAPE = Rule(
    "SFX504",
    "changing-shape",
    (),
    "input shape or requires_grad changes",
    "torch._dynamo.mark_dynamic or dynamic=True",
    "the second shape recompiles once with a dynamic size; with dynamic=False every shape "
    "recompiles until the limit: mark the dimension with torch._dynamo.mark_dynamic, or compile "
    "with dynamic=True",
    fixable=False,
)

CHANGING_NUMBER = Rule(
    "SFX505",
    "changing-number",
    (),
    "changing Python number recompiles once",
    "pass a 0-d tensor",
    "the second value of an int or float argument recompiles the frame once with a symbolic "
    "number: pass a 0-d tensor to compile once",
    fixable=False,
    enabled_by_default=False,
)

GLOBAL_STATE = Rule(
    "SFX506",
    "global-state-change",
    (),
    "grad mode, autocast or training changes",
    "call it in one mode, or compile one module per mode",
    "grad mode, autocast and `training` (read by dropout and batch norm) are guarded: keep them "
    "the same for every call, or compile a separate module for each mode",
    fixable=False,
)

ANALYSIS_SKIPPED = Rule(
    "SFX900",
    "analysis-skipped",
    (),
    "not analysed",
    "no diagnostic is given for this root",
    "report the file to flake8-staticfx; no diagnostic is given for this root",
    fixable=False,
    enabled_by_default=False,
)

# A conversion whose number an `if`, `while` or ternary tests: as a 0-d tensor it would only
# move the break to the test (GB0170).
CONVERSION_TESTED = Advice(
    "select with torch.where or torch.cond",
    "the number is tested by a branch, which a 0-d tensor would only turn into a branch on a tensor "
    "(GB0170): compute both outcomes and select with torch.where, or use torch.cond",
)

# `if <tensor cond>: raise ...`: what `fix` rewrites it to.
RAISE_ON_TENSOR = Advice(
    "assert it with torch._assert_async",
    "check the condition with `torch._assert_async(~cond, msg)` (an `assert` on the tensor is traced "
    "too): the check runs in the graph, without a branch",
)

# range() of a tensor: a guard would only hide the loop from the compiled code.
RANGE_OF_TENSOR = Advice(
    "loop over a shape or a Python int",
    "loop over a Python int dynamo knows (a size from `.shape`, a module setting), not a tensor's value",
)

# print() of tensors and constants: what `fix` does, keeping the print.
REORDERABLE_PRINT = Advice(
    "add print to reorderable_logging_functions",
    "add `torch._dynamo.config.reorderable_logging_functions.add(print)` at module level: dynamo "
    "then runs print of tensors and constants after the graph, without a break",
)

RULES: dict[str, Rule] = {rule.code: rule for rule in list(globals().values()) if isinstance(rule, Rule)}

OFF_BY_DEFAULT = tuple(code for code, rule in RULES.items() if not rule.enabled_by_default)
