"""Data the builder consults: what dynamo 2.13 traces, specialises on, or breaks on.

Each table is named after what it decides; extend a table by adding a name. Every entry
that makes a construct break was checked against torch 2.13 dynamo (tests/oracle). The
calls that break are declared in breaks.py, with their rules.
"""
from __future__ import annotations

import builtins
from dataclasses import dataclass

from astroid import nodes

from .ir import GRAD_ENABLED
from .torch_versions import since
from .values.base import NOTHING

# A module's own dunder globals (`__name__`, `__file__`, `__doc__`, ...) shadow builtins'
# attributes of those names; the dunder functions stay builtins.
BUILTINS = frozenset(name for name in dir(builtins) if not name.startswith("__")) | {
    "__import__", "__build_class__", "__debug__"}
# Attributes of Python's own values: using one says nothing about being a tensor.
BUILTIN_VALUE_ATTRIBUTES = frozenset(
    name for kind in (int, float, bool, str, bytes, list, tuple, dict, set, complex) for name in dir(kind))

# -- tensors -----------------------------------------------------------------

# Attributes that dynamo knows statically (static shapes, dtype, device, flags).
# The floating dtypes a model may run in, by the names torch spells them: `x.dtype == torch.half`
# tests which one the inputs have (a mixed-precision run's float16).
FLOAT_DTYPES = {
    "torch.float16": "float16", "torch.half": "float16", "torch.bfloat16": "bfloat16",
    "torch.float32": "float32", "torch.float": "float32", "torch.float64": "float64", "torch.double": "float64",
}
TENSOR_STATIC_ATTRIBUTES = frozenset({
    "shape", "dtype", "device", "ndim", "is_cuda", "is_cpu", "is_mps", "is_meta", "requires_grad",
    "grad_fn", "layout", "is_leaf", "is_sparse", "is_quantized", "is_nested", "names", "itemsize",
    "nbytes", "is_floating_point_", "output_nr", "_version",
})
# `values`/`indices`: the fields of the named tuples max(dim), sort, topk, mode, ... return.
TENSOR_TENSOR_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "real", "imag", "data", "grad", "values", "indices"})

# Ops returning a named tuple whose fields are not tensor attributes (unlike `values` and
# `indices` above): each field is a tensor (`torch.aminmax(x).max.item()` is GB0124, measured).
TENSOR_NAMED_TUPLES = {"aminmax": ("min", "max")}

# Methods whose result is a static Python value under static shapes.
TENSOR_STATIC_METHODS = frozenset({
    "size", "dim", "ndimension", "numel", "nelement", "element_size", "stride", "storage_offset",
    "is_contiguous", "is_floating_point", "is_complex", "is_signed", "get_device", "data_ptr",
    "is_pinned", "is_shared", "has_names", "__len__", "is_inference", "untyped_storage",
})
# Those that count the elements: zero exactly when the tensor is empty.
TENSOR_ELEMENT_COUNTS = frozenset({"numel", "nelement"})
# Size arguments: a reduction computed in the graph there is converted to a Python int
# (GB0033 by default, traced under capture_scalar_outputs or fullgraph; measured with 2.13 for
# each of these): torch.arange(lengths.max()), x.new_zeros(n.sum()), x.view(n.max(), -1).
ALL_ARGUMENTS, FIRST_ARGUMENT, SECOND_ARGUMENT = slice(None), slice(0, 1), slice(1, 2)
SIZE_FUNCTIONS = {
    "torch.arange": ALL_ARGUMENTS, "torch.zeros": ALL_ARGUMENTS, "torch.ones": ALL_ARGUMENTS,
    "torch.empty": ALL_ARGUMENTS, "torch.rand": ALL_ARGUMENTS, "torch.randn": ALL_ARGUMENTS,
    "torch.full": FIRST_ARGUMENT,
    "torch.nn.functional.pad": SECOND_ARGUMENT,  # F.pad(x, (0, k.sum())): GB0033, measured
    "torch.topk": SECOND_ARGUMENT,  # torch.topk(scores, (scores > 0).sum(-1).max()): GB0033, measured
    "torch.roll": SECOND_ARGUMENT,  # torch.roll(x, shifts=x.sum(0).argmax()): GB0033, measured
    "torch.eye": ALL_ARGUMENTS,  # torch.eye((x.sum(-1) > 0).sum()): GB0033, measured
}
# The same size arguments passed by keyword.
SIZE_KEYWORDS = frozenset({"size", "k", "shifts", "pad", "n", "m"})
# x.narrow(1, mask.argmax(-1).min(), 2), scores.topk((scores > 0).sum(-1).max()),
# x.split(mask.sum(-1).min()), x.select(1, x.sum(-1).sum(0).argmax()) and x.repeat(mask.sum(), 1):
# GB0033, measured.
SIZE_METHODS = frozenset({
    "new_zeros", "new_ones", "new_empty", "new_full", "view", "reshape", "expand", "narrow", "topk", "split",
    "select", "repeat",
})
REDUCTIONS = frozenset({"max", "min", "sum", "amax", "amin", "argmax", "argmin", "count_nonzero", "prod"})
# Methods whose output shape depends on the data (GB0036).
TENSOR_DYNAMIC_SHAPE_METHODS = frozenset({
    "nonzero", "masked_select", "unique", "unique_consecutive", "argwhere", "bincount",
})
# numpy functions that make an array, and array methods that give an array back (measured
# with 2.13: `.tolist()` of such arrays breaks with GB0033, as a tensor's does).
# On an array made from a tensor they give one too (`np.abs(x.numpy()).max() > 1` is GB0170).
NUMPY_ARRAY_FUNCTIONS = frozenset("numpy." + name for name in (
    "array", "asarray", "arange", "linspace", "zeros", "ones", "full", "empty", "concatenate",
    "stack", "round", "floor", "ceil", "clip", "cumsum", "sqrt", "exp", "log",
    "abs", "absolute", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "flip", "square",
    "mean", "sum", "prod", "max", "min", "amax", "amin", "std", "var",
))
# numpy functions whose first arguments are a size (arange: every positional one): a size that
# is data (`np.zeros((2, np.sum(counts)))`, `np.arange(counts.sum())`) needs its value, GB0033.
NUMPY_SIZED_FACTORIES = frozenset("numpy." + name for name in ("zeros", "ones", "empty", "full", "arange"))
# numpy functions whose output size depends on the values: on an array made from a tensor,
# dynamo traces them as the torch ops they are (np.bincount(labels.numpy()): GB0036, measured).
NUMPY_DYNAMIC_SHAPE_FUNCTIONS = frozenset("numpy." + name for name in (
    "bincount", "unique", "nonzero", "flatnonzero", "argwhere",
))
NDARRAY_METHODS = frozenset({
    "astype", "round", "copy", "reshape", "flatten", "ravel", "clip", "cumsum", "cumprod",
    "transpose", "squeeze", "repeat", "sum", "mean", "max", "min", "prod", "std", "var", "any",
    "all", "argmax", "argmin",
})
# Methods returning something that is not a tensor and not static.
TENSOR_NON_TENSOR_METHODS = frozenset({"__array__", "storage", "type", "untyped_storage"})
# Methods whose result is a boolean tensor (a mask).
TENSOR_BOOL_METHODS = frozenset({
    "bool", "eq", "ne", "lt", "le", "gt", "ge", "isnan", "isinf", "isfinite", "isneginf",
    "isposinf", "logical_and", "logical_or", "logical_not", "logical_xor", "isclose", "isin",
    "signbit", "greater", "less", "greater_equal", "less_equal", "not_equal", "equal",
})
# Methods that keep a mask a mask.
TENSOR_SAME_DTYPE_METHODS = frozenset({
    "view", "reshape", "flatten", "squeeze", "unsqueeze", "transpose", "permute", "expand",
    "expand_as", "contiguous", "clone", "detach", "t", "repeat", "to", "__getitem__",
    "any", "all", "cpu", "cuda", "bitwise_not", "logical_not_", "repeat_interleave", "flip", "roll",
    "view_as", "reshape_as", "movedim", "unflatten", "narrow", "tile",
})

# Methods whose result keeps a sparse tensor's layout, so that its next use breaks again
# (`torch.sparse_coo_tensor(...).coalesce()` returned by a helper: GB0015 in the caller too,
# measured: cfg_sparse_kernel_helper.py).  Others (to_dense, sum, matmul) may give dense ones.
TENSOR_SPARSE_LAYOUT_METHODS = frozenset({
    "coalesce", "clone", "detach", "to", "cpu", "cuda", "float", "double", "half", "t",
})

# -- modules -----------------------------------------------------------------

MODULE_TENSOR_ATTRIBUTES = frozenset({
    "weight", "bias", "running_mean", "running_var", "in_proj_weight", "in_proj_bias",
    "q_proj_weight", "k_proj_weight", "v_proj_weight", "bias_k", "bias_v", "weight_ih", "weight_hh",
    "bias_ih", "bias_hh", "num_batches_tracked", "pos_embed", "cls_token",
})
# Library module bases whose `__init__` the analysis does not read, by last name, with the
# attributes it stores from its first parameters: transformers' PreTrainedModel.__init__(self,
# config) sets `self.config = config` (modeling_utils.py, 280 KB, beyond MAX_PROJECT_MODULE_SIZE),
# which every model's forward reads (`self.layers[: self.config.num_hidden_layers]`).
UNREAD_BASE_INIT_ATTRIBUTES = {"PreTrainedModel": ("config",)}
MODULE_METHODS = frozenset({
    "parameters", "named_parameters", "buffers", "named_buffers", "children", "named_children",
    "modules", "named_modules", "register_buffer", "register_parameter", "add_module", "state_dict",
    "train", "eval", "apply", "zero_grad", "to", "cpu", "cuda", "type", "float", "half", "double",
    "requires_grad_", "get_submodule", "get_parameter", "__call__",
})
# What torch.nn layers' forward calls, for `super().forward(x)` in their subclasses.
LAYER_FUNCTIONS = {
    "torch.nn.Linear": ("torch._C._nn.linear", ("weight", "bias")),
    "torch.nn.Embedding": ("torch.nn.functional.embedding", ("weight",)),
}
# torch.nn layers without parameters: their output needs grad only if their input does.
PARAMETER_FREE_LAYERS = frozenset("torch.nn." + name for name in (
    "ReLU", "ReLU6", "GELU", "SiLU", "Mish", "Tanh", "Sigmoid", "Softmax", "LogSoftmax", "Softplus",
    "LeakyReLU", "ELU", "Hardswish", "Hardsigmoid", "Identity", "Dropout", "Dropout1d", "Dropout2d",
    "Dropout3d", "Flatten", "Unflatten", "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d",
    "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "Upsample", "PixelShuffle", "PixelUnshuffle",
    "ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ReflectionPad2d", "ReplicationPad2d",
))
RNN_MODULES = frozenset({"torch.nn.RNN", "torch.nn.GRU", "torch.nn.LSTM"})
# Static methods of torch.nn layers read through an instance (`self.transformer.<name>(n)`).
LAYER_STATIC_METHODS = {"torch.nn.Transformer": frozenset({"generate_square_subsequent_mask"})}


@dataclass(frozen=True)
class RnnCallBreak:
    """How dynamo breaks on an RNN module's call in a release (values/modules.rnn_call_breaks)."""

    gb_ids: tuple[str, ...]
    rest_eagerly: bool  # the rest of the calling frame runs eagerly (else dynamo resumes)


RNN_CALL_BREAKS = since("2.15", RnnCallBreak(("GB0014",), rest_eagerly=True), RnnCallBreak(("GB0148",), False))


@dataclass(frozen=True)
class CausalMaskCheck:
    """A mask argument of a torch.nn Transformer stack's forward, which asks
    `_detect_is_causal_mask` whether the mask is causal unless `is_causal` tells it: on an (S, S)
    mask it takes `bool((mask == causal).all())`, a tensor's value (values/modules.py)."""

    mask: str
    mask_position: int  # in forward's arguments after self
    is_causal: str
    is_causal_position: int


# Measured with 2.13, 2.14.1 and 2.15.0 (GB0124 in each, training and eval alike):
# transformer_mask.py. A single layer takes `is_causal` as a plain hint and never checks.
CAUSAL_MASK_CHECKS = {
    "torch.nn.TransformerEncoder": (CausalMaskCheck("mask", 1, "is_causal", 3),),
    "torch.nn.TransformerDecoder": (CausalMaskCheck("tgt_mask", 2, "tgt_is_causal", 6),),
    "torch.nn.Transformer": (CausalMaskCheck("src_mask", 2, "src_is_causal", 8),
                             CausalMaskCheck("tgt_mask", 3, "tgt_is_causal", 9)),
}

# -- functions from outside the project ----------------------------------------

# random functions dynamo turns into graph inputs (random.random too from 2.14; 2.13 skips it,
# breaks.BREAKING_CALLS).
TRACED_RANDOM_FUNCTIONS = frozenset({"random.randint", "random.uniform", "random.randrange", "random.random"})
# min()/max() with key=, by what the key is: 2.13's handler breaks on a key computing a tensor
# and on a lambda reading the compiled function's variables (GB0193; a module-level def, `abs`
# or a list's `__getitem__` over constants traces); from 2.14 only a key computing a tensor
# breaks (GB5687). Measured: ver_min_max_keys.py, ver_moved_breaks.py, ver_fixed_after_213.py.
# A comprehension dynamo compiles alone cannot step its iterator: "Missing tp_iternext" (2.13),
# "C-implemented special method without VariableTracker model" from 2.14 (measured:
# eager_comprehension_iterators.py).
COMPREHENSION_ITERATOR_GB = since("2.14", ("GB4347",), ("GB9493",))
# Iterating a zip, enumerate or dict view the caller passed in: "Dynamo does not know how to
# iterate over UserDefinedObjectVariable(zip)" (2.13), the C-implemented special method from 2.14
# (measured: passed_iterators.py).
PASSED_ITERATOR_GB = since("2.14", ("GB0811",), ("GB9493",))
MIN_MAX_KEY_BREAKS = {"tensor": since("2.14", ("GB0193",), ("GB5687",)),
                      "closure": since("2.14", ("GB0193",), None)}
# isinstance(tensor, C) where C's metaclass defines __instancecheck__: from 2.14 a break (GB2736).
CUSTOM_INSTANCE_CHECK_BREAKS = since("2.14", None, ("GB2736",))
# Calling `torch.compiler.disable(f)` made in the compiled code: 2.13 skips the wrapper
# (GB0007), 2.14 names the call (GB0377); both then skip calling f (GB0098). Measured:
# ver_moved_breaks.py.
DISABLED_WRAPPER_CALL_BREAKS = since("2.14", ("GB0007", "GB0098"), ("GB0377", "GB0098"))
# range() of a tensor: 2.13 cannot trace the builtin (GB0059); 2.14 asks for the tensor's item
# (GB0124). Measured: tensor_values.py, val_int_arguments.py, val_int_loop_bounds.py.
RANGE_OF_TENSOR_BREAKS = since("2.14", ("GB0059",), ("GB0124",))
# A call of a function under `@torch._dynamo.config.patch(...)`: 2.13 cannot enter the patch's
# context manager (GB0142); 2.14 cannot mutate its ContextVar (GB6815) or skips the patch's
# function (GB0007), by setting. Measured: cfg_config_patch_forward.py.
CONFIG_PATCH_CALL_BREAKS = since("2.14", ("GB0142",), ("GB6815", "GB0007"))
# Builtins computed on known static arguments exactly as Python would.
PURE_BUILTINS = frozenset({
    "str", "repr", "int", "float", "bool", "abs", "round", "min", "max", "len", "sorted",
    "tuple", "sum", "divmod", "pow", "ord", "chr", "hex", "bin", "oct", "isinstance",
})
# Python's value types: no class object, function or module is an instance of one.
BUILTIN_VALUE_TYPES = frozenset({
    "tuple", "list", "dict", "set", "frozenset", "str", "bytes", "int", "float", "bool", "complex",
})
# str methods computed on known strings: none of them can grow a string much.
FOLDED_STR_METHODS = frozenset({
    "startswith", "endswith", "lower", "upper", "strip", "lstrip", "rstrip", "split", "rsplit",
    "casefold", "title", "capitalize", "count", "find", "rfind", "partition", "rpartition",
    "isdigit", "isalpha", "isalnum", "isidentifier", "islower", "isupper", "removeprefix",
    "removesuffix",
})
STATIC_BUILTINS = frozenset({
    "hasattr", "callable", "id", "type", "hash", "repr", "str", "format", "ord", "chr",
    "issubclass", "bin", "hex", "oct", "ascii", "all", "any",
})

LOGGER_FACTORIES = frozenset({"logging.getLogger", "logging.get_logger"})
# `logger.isEnabledFor(level)` for a logger nobody configured: it inherits the root logger's
# WARNING level. Only assumed (the lint still explores both sides; the instance view follows it).
ENABLED_AT_DEFAULT_LEVEL = {
    "logging.DEBUG": False, "logging.INFO": False,
    "logging.WARNING": True, "logging.ERROR": True, "logging.CRITICAL": True,
}
LOGGER_METHODS = frozenset({
    "debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log",
    "warning_once",  # transformers' addition to logging.Logger
    "isEnabledFor",
})

# Calls whose static result says how the model is run: true exactly when the condition of that
# kind (ir.py) holds, which a break under them needs.
RUN_TESTS = {"torch.is_grad_enabled": GRAD_ENABLED}
# Calls testing whether autocast is on (a flag dynamo guards on), with the device type each tests
# when given none.
AUTOCAST_TESTS = {"torch.is_autocast_enabled": "cuda", "torch.is_autocast_cpu_enabled": "cpu"}
# Tensor attributes testing the device a model runs on (`x.is_cuda`), with the device type each names.
TENSOR_DEVICE_FLAGS = {"is_cuda": "cuda", "is_cpu": "cpu", "is_mps": "mps"}

# Calls with a static result under torch.compile: its value when known (True while compiling),
# NOTHING when it is static but not known here.
STATIC_FUNCTIONS = {
    "torch.compiler.is_compiling": True,
    "torch.compiler.is_dynamo_compiling": True,
    "torch._dynamo.is_compiling": True,
    "torch._utils.is_compiling": True,
    "transformers.utils.is_torchdynamo_compiling": True,
    "transformers.utils.import_utils.is_torchdynamo_compiling": True,
    "diffusers.utils.torch_utils.is_torch_version": NOTHING,
    "torch.jit.is_scripting": False,
    "torch.jit.is_tracing": False,
    "torch._C._get_tracing_state": NOTHING,
    "torch.onnx.is_in_onnx_export": False,
    "torch.fx._symbolic_trace.is_fx_tracing": False,
    "torch.is_inference_mode_enabled": NOTHING,
    "torch.get_autocast_gpu_dtype": NOTHING,
    "torch.get_default_dtype": NOTHING,
    "torch.promote_types": NOTHING,  # a dtype: dynamo folds it on dtypes
    "torch.is_tensor": NOTHING,
    "torch.is_floating_point": NOTHING,
    "torch.is_complex": NOTHING,
    "torch.numel": NOTHING,
    "torch.cuda.is_available": NOTHING,
    "torch.cuda.device_count": NOTHING,
    "torch.cuda.get_device_capability": NOTHING,
    "torch.distributed.is_available": NOTHING,
    "torch.distributed.is_initialized": NOTHING,
    "torch.distributed.get_world_size": NOTHING,
    "torch.distributed.get_rank": NOTHING,
    "torch.are_deterministic_algorithms_enabled": NOTHING,
    "torch.backends.cudnn.is_available": NOTHING,
    "torch.finfo": NOTHING,
    "torch.iinfo": NOTHING,
    "torch.device": NOTHING,
    "torch.Size": NOTHING,
    "torch.dtype": NOTHING,
    "inspect.signature": NOTHING,
    "inspect.isclass": NOTHING,
    "inspect.isfunction": NOTHING,
    "typing.cast": NOTHING,
}
# Names of torch that hold a string or None, which dynamo reads as a constant: torch.__version__
# is a TorchVersion (a str), not a torch function; `int(torch.__version__.split(".")[0])` traces.
STATIC_ATTRIBUTES = frozenset({
    "torch.__version__", "torch.version.__version__", "torch.version.cuda", "torch.version.hip",
    "torch.version.git_version", "torch.version.debug",
})
# torch functions whose first argument is a size or data, not a tensor.
TORCH_FACTORIES = frozenset({
    "zeros", "ones", "empty", "full", "arange", "range", "linspace", "logspace", "eye", "rand",
    "randn", "randint", "randperm", "tensor", "as_tensor", "asarray", "from_numpy", "manual_seed",
    "device", "finfo", "iinfo", "compile", "no_grad", "enable_grad", "set_grad_enabled", "autocast",
    "cat", "stack", "broadcast_tensors", "meshgrid", "einsum", "cartesian_prod", "block_diag",
})
# torch functions named like queries return Python values, not tensors.
TORCH_QUERY_PREFIXES = ("is_", "get_", "are_", "has_")
# Environment variables: static to dynamo; their default is assumed (usually unset).
ENVIRONMENT_LOOKUPS = frozenset({"os.environ.get", "os.getenv"})
TORCH_TENSOR_CLASSES = frozenset({
    "torch.Tensor", "torch.FloatTensor", "torch.LongTensor", "torch.BoolTensor",
    "torch.IntTensor", "torch.DoubleTensor", "torch.HalfTensor", "torch.BFloat16Tensor",
    "torch.ByteTensor", "torch.nn.Parameter",
})
TORCH_STATIC_CLASSES = frozenset({"torch.Size", "torch.device", "torch.dtype", "torch.finfo", "torch.iinfo"})
TORCH_NON_TENSOR_FUNCTIONS = frozenset({
    "torch.jit.annotate", "torch._assert", "torch.cuda.synchronize", "torch.set_grad_enabled",
    "torch.no_grad", "torch.enable_grad", "torch.autocast", "torch.inference_mode",
    "torch.profiler.record_function", "torch.autograd.profiler.record_function",
})
# Functions that reparametrize the module they are given and return that same module.
RETURNS_ITS_MODULE = frozenset({
    "torch.nn.utils.weight_norm", "torch.nn.utils.spectral_norm", "torch.nn.utils.remove_weight_norm",
    "torch.nn.utils.remove_spectral_norm", "torch.nn.utils.parametrizations.weight_norm",
    "torch.nn.utils.parametrizations.spectral_norm", "torch.nn.utils.parametrizations.orthogonal",
    "torch.nn.utils.parametrize.register_parametrization",
})
# Functions that call their first argument with the rest (so it is inlined).
CALL_FIRST_ARGUMENT = frozenset({
    "torch.utils.checkpoint.checkpoint", "torch.utils.checkpoint.checkpoint_sequential",
})
# Context managers dynamo resumes inside after a break (measured: a print inside
# `with torch.no_grad()`, `torch.enable_grad()`, `torch.autocast("cpu")` compiles two graphs and
# skips no frame; tests/cases/grad_mode_blocks.py; a print inside
# `with torch.profiler.record_function(...)` the same: cfg_ctx_builtin_managers.py). Other
# `with` blocks are given up on.
RESUMABLE_CONTEXTS = frozenset({
    "torch.no_grad", "torch.enable_grad", "torch.autocast", "torch.amp.autocast",
    "torch.amp.autocast_mode.autocast", "torch.profiler.record_function",
    "torch.autograd.profiler.record_function",
})
# Context managers whose `with` dynamo gives up on (GB0142, after GB0208 for these).
UNSUPPORTED_CONTEXTS = frozenset({
    "torch.random.fork_rng", "torch.backends.cuda.sdp_kernel", "torch.backends.cudnn.flags",
})
# unittest.mock objects: dynamo skips the unittest directory, so calling one breaks
# ("Attempted to inline function marked as skipped", GB0008; measured: cfg_mock_decorated.py).
MOCK_CLASSES = frozenset({"unittest.mock.Mock", "unittest.mock.MagicMock"})
# Classes whose objects' methods breaks.BREAKING_CALLS names (`contextvars.ContextVar.get`).
INSTANCE_CLASSES = frozenset({"contextvars.ContextVar"})
# Builtins that turn a tensor into text (GB0059 for str, GB0569 for repr).
TENSOR_TEXT_BUILTINS = frozenset({"str", "repr"})

# -- torch.distributions --------------------------------------------------------

# torch.distributions' documented calls into subclasses (torch 2.13, distributions/transforms.py
# and transformed_distribution.py): the linter never reads torch, so what its methods run on a
# subclass instance is declared here (values/distributions.py).
TRANSFORM_CLASSES = frozenset({"torch.distributions.Transform", "torch.distributions.transforms.Transform"})
# A Transform's torch method -> the subclass's hook it runs on the same argument: `t(x)` is
# `t._call(x)`; `t.inv(y)` is `t._inv_call(y)`, which is `t._inverse(y)`.
TRANSFORM_HOOKS = {"__call__": "_call", "_inv_call": "_inverse"}
TRANSFORMED_DISTRIBUTION_CLASSES = frozenset({
    "torch.distributions.TransformedDistribution",
    "torch.distributions.transformed_distribution.TransformedDistribution",
})
# TransformedDistribution(base_distribution, transforms) keeps them as `base_dist` and
# `transforms`; log_prob(value) runs, for each transform in reversed order, its inverse and
# `log_abs_det_jacobian(x, y)`, then `base_dist.log_prob`; sample() and rsample() run
# `base_dist`'s, then each transform forward. The method -> the direction it runs the transforms.
TRANSFORMED_DISTRIBUTION_METHODS = {"log_prob": "inverse", "sample": "forward", "rsample": "forward"}
# Library classes made at import time from a torch class by a statement that binds no name, so
# resolution cannot see them: pyro.distributions.torch wraps each torch distribution it does not
# define as `type(name, (torch class, TorchDistributionMixin), {})` (the mixin adds methods only).
RUNTIME_TORCH_SUBCLASSES = {
    "pyro.distributions.torch.TransformedDistribution": "torch.distributions.TransformedDistribution",
}

# -- annotations ---------------------------------------------------------------

# Tensor annotations that name no dtype; "tensor": `torch.tensor`, the factory, written for the
# type (wav2vec2, hubert, sew-d, ...).
_ANY_DTYPE_TENSOR_NAMES = frozenset({"Tensor", "torch.Tensor", "tensor"})
_TENSOR_NAMES = _ANY_DTYPE_TENSOR_NAMES | {"FloatTensor", "LongTensor", "BoolTensor", "IntTensor", "Parameter"}
_STATIC_NAMES = frozenset({
    "int", "float", "bool", "str", "bytes", "complex", "Size", "dtype", "device", "Literal",
    "None", "NoneType", "slice",
})
_WRAPPERS = frozenset({"Optional", "Union", "Annotated", "Final", "ClassVar"})


_NONE_NAMES = ("None", "NoneType")  # the optional part of `Optional[X]`, `X | None`


def annotation_kind(resolver, annotation: nodes.NodeNG | None) -> str | None:
    """What a parameter annotation says the argument is: "tensor", "static", "unknown", or None."""
    if annotation is None:
        return None
    names = _annotation_names(annotation, resolver)
    if not names:
        return "unknown"
    kinds = {"tensor" if n in _TENSOR_NAMES else "static" if n in _STATIC_NAMES else "unknown"
             for n in names if n not in _NONE_NAMES}
    if not kinds:
        return "static"
    return kinds.pop() if len(kinds) == 1 else "unknown"


# The last word of a tensor's name that says it holds booleans: `mask`, `mlm_mask`,
# `visual_pos_masks`. Every tensor so named that transformers, diffusers and torchvision index
# with (`hidden_states[padding_mask]`, 20 places) is a bool mask.
MASK_WORDS = frozenset({"mask", "masks"})


def is_bool_mask(resolver, name: str, annotation: nodes.NodeNG | None) -> bool:
    """Is the tensor parameter `name` a boolean mask: annotated so (`torch.BoolTensor`,
    `Optional[BoolTensor]`), or named so with no annotation saying another dtype?"""
    names = [n for n in _annotation_names(annotation, resolver) if n not in _NONE_NAMES] \
        if annotation is not None else []
    if names and all(n == "BoolTensor" for n in names):
        return True
    return all(n in _ANY_DTYPE_TENSOR_NAMES for n in names) and name.rsplit("_", 1)[-1] in MASK_WORDS


_SEQUENCE_NAMES = frozenset({"List", "list", "Tuple", "tuple", "Sequence", "Iterable"})


def is_tensor_sequence(resolver, annotation: nodes.NodeNG | None) -> bool:
    """Does the annotation say a sequence of tensors (`List[Tensor]`, `Tuple[Tensor, ...]`)?"""
    if not isinstance(annotation, nodes.Subscript) \
            or not set(_annotation_names(annotation.value, resolver)[:1]) & _SEQUENCE_NAMES:
        return False
    inner = annotation.slice
    elts = [e for e in (inner.elts if isinstance(inner, nodes.Tuple) else [inner])
            if not (isinstance(e, nodes.Const) and e.value is Ellipsis)]
    return bool(elts) and all(annotation_kind(resolver, e) == "tensor" for e in elts)


def _annotation_names(annotation: nodes.NodeNG, resolver, depth: int = 0) -> list[str]:
    """The leaf type names of an annotation, looking through Optional/Union/X | Y and through
    module-level aliases (`OptionalTensor = Optional[torch.Tensor]`)."""
    if isinstance(annotation, nodes.Const):
        if annotation.value is None:
            return ["None"]
        if isinstance(annotation.value, str):
            text = annotation.value.replace("Optional[", "").replace("]", "")
            return [part.strip().rsplit(".", 1)[-1] for part in text.replace("|", ",").split(",")]
        return []
    if isinstance(annotation, nodes.BinOp) and annotation.op == "|":
        return [*_annotation_names(annotation.left, resolver, depth),
                *_annotation_names(annotation.right, resolver, depth)]
    if isinstance(annotation, nodes.Subscript):
        outer = _annotation_names(annotation.value, resolver, depth)
        if outer and outer[0] in _WRAPPERS:
            inner = annotation.slice
            elts = inner.elts if isinstance(inner, nodes.Tuple) else [inner]
            if outer[0] == "Annotated":
                elts = elts[:1]
            return [name for elt in elts for name in _annotation_names(elt, resolver, depth)]
        return ["<container>"]
    if isinstance(annotation, nodes.Name):
        alias = _type_alias(annotation, resolver, depth)
        return _annotation_names(alias, resolver, depth + 1) if alias is not None else [annotation.name]
    if isinstance(annotation, nodes.Attribute):
        return [annotation.attrname]
    return []


_MAX_ALIAS_DEPTH = 3


def _type_alias(name: nodes.Name, resolver, depth: int) -> nodes.NodeNG | None:
    """The annotation a module-level alias stands for, when `name` is one."""
    if name.name in _TENSOR_NAMES or name.name in _STATIC_NAMES or name.name in _WRAPPERS \
            or depth >= _MAX_ALIAS_DEPTH:
        return None
    binding = resolver.global_binding(resolver.source_of(name), name.name)
    if binding is None or binding.kind != "assign" or binding.node is None:
        return None
    alias = binding.node
    return alias if isinstance(alias, (nodes.Subscript, nodes.BinOp, nodes.Name, nodes.Attribute)) else None
