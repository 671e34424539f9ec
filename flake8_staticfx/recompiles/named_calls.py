"""What a call of a named function returns in a driver, as a description of values.py:
torch.compile, torch's factories and functions, torch.nn layers and containers, torch.optim
optimizers, Python's builtins and math. None where the replay does not follow the call (it
stops there); calls that change dynamo's state are the replay's own to stop at."""
from __future__ import annotations

from dataclasses import replace

from .arithmetic import BUILTINS, MATH_FUNCTIONS, builtin, math_call
from .declarations import NAMESPACES, method_of
from .rearranging import einops, einops_strides
from .shapes import FACTORIES, ShapeUnknown, tensor_of, torch_function
from .values import (UNKNOWN_SIZE, Batches, Categorical, Compiled, Const, DictValue, Function, Instance, Layer,
                     ListValue, ModuleDict, Number, Optimizer, Parameters, Record, TensorRows, TensorValue, Unfollowed,
                     Unknown, numeric)

DYNAMIC_SHAPE_OPS = frozenset({"nonzero", "masked_select", "unique", "argwhere"})
MARKS_DYNAMIC = ("torch._dynamo.mark_dynamic", "torch._dynamo.maybe_mark_dynamic")
# Libraries whose functions make tensors from tensors and change nothing else: a call gives the
# shape its arguments determine (einops' patterns), else a tensor of a shape not followed.
LIBRARIES = frozenset({"einops"})
# The modules whose imported names a driver's calls are resolved through: the libraries above,
# and torch.optim (`from torch.optim.lr_scheduler import StepLR`: a scheduler sets the optimizer's
# learning rate, which no guard reads), and math (`from math import log10`).
RESOLVED_IMPORTS = LIBRARIES | {"torch.optim", "torch.utils.data", "torch.distributions", "itertools", "math"}
# DataLoader settings that leave the batches' shapes as batch_size and drop_last make them.
LOADER_SETTINGS = frozenset({"batch_size", "shuffle", "drop_last", "num_workers", "pin_memory"})
# Progress bars a driver wraps an iterable in: the same items, one by one.
PROGRESS_BARS = frozenset({"tqdm", "tqdm.tqdm", "tqdm.auto.tqdm"})
NUMPY_RANDOM = ("np.random.", "numpy.random.")
# Seeding Python's or numpy's random numbers: state no guard of dynamo reads.
SEEDING = frozenset({"random.seed", "np.random.seed", "numpy.random.seed"})
# Python's random numbers: a number the replay does not know (seq2seq's teacher forcing test).
RANDOM_NUMBERS = frozenset({"random.random", "random.randint", "random.randrange", "random.uniform", "random.gauss",
                            "random.normalvariate"})


def named_value(name: str, args: list, kwargs: dict, line: int, grad_mode: str):
    """`name(*args, **kwargs)` called at `line` in `grad_mode` ("grad", "no_grad", "inference_mode")."""
    short = name.split(".")[-1]
    inference = grad_mode == "inference_mode"
    if name in ("torch.compile",) and args:
        dynamic = kwargs.get("dynamic", Const(None))
        return Compiled(args[0], dynamic.value if isinstance(dynamic, Const) else None, line)
    if name.startswith("torch.") and short in FACTORIES:
        # a size not known where it can only be an int (a number, or one of several sizes): the
        # rank stays known (char-RNN's `torch.zeros(len(line), 1, n_letters)`)
        sizes = args[0].value if len(args) == 1 and isinstance(args[0], Const) and isinstance(
            args[0].value, tuple) else tuple(a.value if isinstance(a, Const) else UNKNOWN_SIZE if isinstance(
                a, Number) or len(args) > 1 else None for a in args)
        grad = kwargs.get("requires_grad", Const(False))
        return TensorValue(None if None in sizes else tuple(sizes),
                           bool(grad.value) if isinstance(grad, Const) else None, inference=inference)
    if name.startswith(NUMPY_RANDOM) and isinstance(kwargs.get("size"), Const):
        size = kwargs["size"].value  # `np.random.choice(n, size=(b,))`: an array of that shape
        return TensorValue(size if isinstance(size, tuple) else (size,)) if isinstance(size, (int, tuple)) else None
    if name.split(".", 1)[-1] == "linspace" and name.startswith(("np.", "numpy.")) and len(args) >= 3 and isinstance(
            args[2], Const) and type(args[2].value) is int:
        return TensorValue((args[2].value,))  # a schedule of n numbers (improved-diffusion's betas)
    if name == "torch.from_numpy" and len(args) == 1 and isinstance(args[0], TensorValue):
        return TensorValue(args[0].shape)
    if name == "torch.tensor" and args:
        return tensor_of(args[0])
    if name in ("nn.Parameter", "torch.nn.Parameter") and args and isinstance(args[0], TensorValue):
        return TensorValue(args[0].shape, True)
    if name in MARKS_DYNAMIC and len(args) == 2:
        if isinstance(args[0], TensorValue) and isinstance(args[1], Const):
            args[0].dynamic_dims.add(args[1].value)
        return Const(None)
    if name.startswith(("nn.", "torch.nn.")) and not name.startswith(("nn.functional", "torch.nn.functional")):
        if short == "ModuleDict" and len(args) == 1 and isinstance(args[0], DictValue):
            return ModuleDict(dict(args[0].items))
        if short in ("ModuleList", "Sequential"):
            items = args[0].items if short == "ModuleList" and args and isinstance(args[0], ListValue) else args
            return ListValue(list(items))
        return Layer(short, tuple(a.value if isinstance(a, Const) else None for a in args),
                     {key: value.value for key, value in kwargs.items() if isinstance(value, Const)})
    if name == "len" and len(args) == 1 and isinstance(args[0], TensorRows):
        return Const(args[0].length)
    if name == "len" and len(args) == 1 and (isinstance(args[0], Unknown) or isinstance(
            args[0], Instance) and method_of(args[0].cls, "__len__") is not None):
        return Number()  # the length of what the replay does not follow (makemore's dataset): an int
    if name in BUILTINS:
        return builtin(name, [ListValue(a.items()) if isinstance(a, Batches) else a for a in args])
    if name == "next" and len(args) == 1 and isinstance(args[0], Parameters):
        return TensorValue(None, True)  # a parameter, of a shape not followed
    if name == "isinstance" and len(args) == 2:
        return _isinstance(*args)
    if name in NAMESPACES and not args:
        return Record(dict(kwargs))  # argparse's stand-in: its fields read back as given
    if name in PROGRESS_BARS and len(args) == 1:
        return args[0]  # `for data, target in tqdm(loader, desc=...)`: the items it wraps
    if name == "print" or name in SEEDING:
        return Const(None)
    if name in RANDOM_NUMBERS or name == "random.choice" and len(args) == 1:
        return random_value(name, args)
    if name in MATH_FUNCTIONS and not kwargs:
        return math_call(name, args)
    if name == "dict" and not args:
        return DictValue(dict(kwargs))
    if name.startswith(("torch.optim.", "optim.")) and short[:1].isupper():
        return Optimizer()
    if name.startswith("torch.utils.data."):
        return data_value(short, args, kwargs)
    if name == "torch.distributions.Categorical":
        probs = kwargs.get("probs", args[0] if args else kwargs.get("logits"))
        return Categorical(probs.shape[:-1] if probs.shape else None, probs.requires_grad) if isinstance(
            probs, TensorValue) and len(args) + len(kwargs) == 1 else None
    if name.startswith("torch.") and short in DYNAMIC_SHAPE_OPS:
        return TensorValue(None, None, data_sized=True)
    if name.split(".")[0] in LIBRARIES:
        return replace(library_tensor(name, args, kwargs, grad_mode == "grad"), inference=inference)
    if name.startswith(("torch.", "F.")):
        try:
            result = torch_function(short, args, kwargs, grad_mode == "grad")
        except ShapeUnknown:
            return TensorValue(None, None)  # a tensor not followed: no claim where it is an input
        if isinstance(result, ListValue):  # torch.topk: values and indices
            return ListValue([replace(item, inference=inference) for item in result.items])
        return replace(result, inference=inference)  # made under inference_mode: an inference tensor
    return None


def random_value(name: str, args: list):
    """A random number, or `random.choice(items)`: a number not known from numbers, an object not
    followed from anything else the replay holds no state of (strings, a table it did not
    follow); None (not followed) from tensors or modules, which the replay would have to tell
    apart."""
    if name != "random.choice":
        return Number()
    items = args[0].items if isinstance(args[0], ListValue) else [Const(item) for item in args[0].value] if isinstance(
        args[0], Const) and isinstance(args[0].value, (tuple, str)) else None
    if items is None:
        return Unfollowed() if isinstance(args[0], (Unknown, Function)) else None
    if items and all(numeric(item) for item in items):
        return Number()
    return Unfollowed() if all(isinstance(item, (Const, Unfollowed)) for item in items) else None


def data_value(short: str, args: list, kwargs: dict):
    """A TensorDataset of tensors alike in a known length, a DataLoader batching one (a constant
    batch size, no sampler or collate of its own); None for anything else."""
    if short == "TensorDataset" and args and not kwargs and all(
            isinstance(a, TensorValue) and a.shape and isinstance(a.shape[0], int)
            and a.requires_grad is False and not a.view for a in args) and len({a.shape[0] for a in args}) == 1:
        return TensorRows(list(args), args[0].shape[0])
    settings = dict(zip(("dataset", "batch_size", "shuffle"), args), **kwargs)
    dataset = settings.pop("dataset", None)  # `DataLoader(dataset=train_set, ...)` too
    if short != "DataLoader" or not isinstance(dataset, TensorRows) or not set(settings) <= LOADER_SETTINGS:
        return None
    size, drop_last = settings.get("batch_size", Const(1)), settings.get("drop_last", Const(False))
    if not (isinstance(size, Const) and type(size.value) is int and size.value > 0 and isinstance(drop_last, Const)):
        return None
    return Batches(dataset, size.value, bool(drop_last.value))


def library_tensor(name: str, args: list, kwargs: dict, grad_enabled: bool) -> TensorValue:
    """einops' rearrange/repeat of a fresh tensor of known shape by a constant pattern: the shape
    the pattern gives, and the strides of the view it is unless laid out as a fresh tensor
    (measured with torch: `repeat(ids, "h w c -> b (h w) c", b=1)` is contiguous, with b=2 its
    first stride is 0); any other library call, a tensor not followed."""
    tensor, pattern = (args + [None, None])[:2]
    sizes = {key: value.value for key, value in kwargs.items() if isinstance(value, Const)}
    if not (isinstance(tensor, TensorValue) and tensor.shape is not None and not tensor.view
            and all(isinstance(size, int) for size in tensor.shape) and isinstance(pattern, Const)
            and isinstance(pattern.value, str) and len(sizes) == len(kwargs)):
        return TensorValue(None, None)
    shape = einops(name.split(".")[-1], pattern.value, tuple(tensor.shape), sizes)
    if shape is None:
        return TensorValue(None, None)
    strides = einops_strides(pattern.value, tuple(tensor.shape), sizes)
    return TensorValue(shape, grad_enabled and tensor.requires_grad, view=strides != "fresh",
                       strides=strides if isinstance(strides, tuple) else None)


# The classes `isinstance` is answered for, by their name in the code.
_CLASSES = {"str": str, "int": int, "float": float, "bool": bool, "dict": dict}


def _isinstance(value, cls) -> Const | None:
    """`isinstance(h, torch.Tensor)`, `isinstance(prompt, str)` on a value whose kind is known;
    None where it is not (a module, a number not followed, a list or tuple asked which it is:
    a ListValue and a Const tuple stand for both)."""
    name = getattr(cls, "name", None)
    if name == "torch.Tensor" and isinstance(value, (TensorValue, Const, ListValue, DictValue)):
        return Const(isinstance(value, TensorValue))
    if name in _CLASSES and isinstance(value, Const) and not isinstance(value.value, (tuple, list, range)):
        return Const(isinstance(value.value, _CLASSES[name]))
    if name in _CLASSES and isinstance(value, (TensorValue, ListValue, DictValue)):
        return Const(name == "dict" and isinstance(value, DictValue))
    return None
