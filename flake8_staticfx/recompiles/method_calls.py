"""The methods a driver calls on the values it holds (drivers.py): a module's (`eval`, `compile`,
`apply`, a method of the project), a container's, an optimizer's, a tensor's. Apart from
drivers.py so that the replay's statements and expressions stay one class of their own size."""
from __future__ import annotations

import ast
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from .declarations import initializes_only, method_of
from .grads import method_grad
from .project_calls import inline
from .shapes import ShapeUnknown, tensor_method
from .plain_objects import changes_only_itself, forget_state, harmless_arguments, plain_object
from .stops import StopInside, StopReplay
from .values import (UNKNOWN, Categorical, Compiled, Const, Function, Instance, Layer, ListValue, ModuleDict, Number,
                     Optimizer, Parameters, SizesNotFollowed, TensorValue)

if TYPE_CHECKING:
    from .drivers import Replay

# nn.Module methods a compiled module answers for the module it wraps (OptimizedModule holds it
# as its submodule `_orig_mod`): its parameters, its training flag.
MODULE_PASSTHROUGH = frozenset({"parameters", "named_parameters", "eval", "train", "zero_grad"})
# Module methods that cast parameters and buffers in place and return the module
MODULE_CASTS = frozenset({"double", "float", "half", "bfloat16", "to", "cpu"})
# Methods of a string the replay evaluates the arguments of and gives nothing it follows for
# (`'Epoch: {}'.format(epoch)`, makemore's `''.join(chars)`): text no guard reads.
TEXT_METHODS = frozenset({"format", "join", "strip", "lower", "upper", "replace"})
# A Categorical's methods the replay follows, with how many arguments: a sample, and the log
# probability or entropy (of the batch's shape).
CATEGORICAL_METHODS = frozenset({("sample", 0), ("log_prob", 1), ("entropy", 0)})


@dataclass
class Closure:
    """A function defined inside a driver or an inlined function, with the names it sees."""

    node: ast.FunctionDef
    env: dict


@dataclass
class DriverMethod:
    """A method read off a value (`model.eval`, `optimizer.step`), called next."""

    owner: object
    name: str


def method_call(replay: Replay, method: DriverMethod, args: list, kwargs: dict, node: ast.Call):
    """`owner.name(*args, **kwargs)` in a driver: a module's, a container's, an optimizer's or a
    tensor's method, on the value descriptions of values.py."""
    owner, name = method.owner, method.name
    if isinstance(owner, Compiled) and isinstance(owner.target, Instance) and (
            name in MODULE_PASSTHROUGH or name != "forward" and method_of(owner.target.cls, name)):
        owner = owner.target  # torch.compile(model).parameters(), .init_hidden(): the wrapper passes them on
    if isinstance(owner, Instance):
        if name == "compile":
            owner.compiled, owner.compile_line = True, node.lineno
            dynamic = kwargs.get("dynamic", Const(None))
            owner.dynamic = dynamic.value if isinstance(dynamic, Const) else None
            return Const(None)
        if name in ("eval", "train"):
            owner.set_training(name == "train" and (not args or bool(getattr(args[0], "value", True))))
            return owner
        if name in MODULE_CASTS:
            return owner  # `seq.double()`: every parameter cast alike, the module itself returned
        if name == "apply" and len(args) == 1 and isinstance(args[0], Function) and args[0].name in replay.functions \
                and initializes_only(replay.functions[args[0].name]):
            return owner  # `netG.apply(weights_init)`: parameter values set in place
        function = method_of(owner.cls, name)
        if function is not None:
            try:
                return inline(replay, function, [owner, *args], kwargs, {})  # a method of the project
            except StopInside:
                if not (plain_object(owner, replay.classes) and harmless_arguments(args, kwargs)
                        and changes_only_itself(function, set(replay.functions) | set(replay.classes))):
                    raise
                return forget_state(owner)  # `env.step(action)`, `meter.update(loss.item(), n)`
        if name == "register_buffer" and len(args) >= 2 and isinstance(args[0], Const):
            owner.attributes[args[0].value] = args[1]
            return Const(None)
        if name == "parameters" and not args:
            return Parameters()
        if name.startswith("register_") or name in ("zero_grad", "parameters"):
            return UNKNOWN
    if isinstance(owner, (ListValue, ModuleDict)):
        return _container_method(owner, name, args)
    if isinstance(owner, Optimizer) and name == "step" and args and isinstance(args[0], Closure):
        inline(replay, args[0].node, [], {}, args[0].env)  # LBFGS's `step(closure)`: its calls, followed once
        return UNKNOWN
    if isinstance(owner, Optimizer):
        return Const(None)  # step(), zero_grad(): the parameters' values change, which no guard reads
    if isinstance(owner, Layer) and name.startswith("register_"):
        return UNKNOWN  # a hook added after compiling: dynamo ignores it (measured, no recompile)
    if isinstance(owner, Categorical) and not kwargs and (name, len(args)) in CATEGORICAL_METHODS:
        return owner.sample() if name == "sample" else owner.log_prob(replay.grad_mode == "grad")
    if isinstance(owner, TensorValue) and name in ("backward", "sum", "mean"):
        return TensorValue((), None)
    if isinstance(owner, TensorValue) and not owner.data_sized:
        try:
            result = replay.made_here(tensor_method(owner, name, args, kwargs, replay.grad_mode == "grad"))
            if owner.view and isinstance(result, TensorValue) and not _copied(name, result):
                # .detach(), .to(): may be the same strided view
                return replace(result, view=True, strides=owner.strides if result.shape == owner.shape else None)
            return result
        except ShapeUnknown:
            pass
    if isinstance(owner, TensorValue) and name == "size" and len(args) == 1:
        return Number()  # a size not followed: a number (`min(top_k, logits.size(-1))`)
    if isinstance(owner, TensorValue) and name == "size" and not args:
        return SizesNotFollowed()  # as `.shape`: each size a number
    if isinstance(owner, TensorValue) and name == "item" and not args and owner.shape is None:
        return Number()  # a Python number whatever the shape (`action.item()` of a sampled action)
    if isinstance(owner, TensorValue) and name in ("tolist", "item") and not args and owner.shape is not None \
            and len(owner.shape) <= 1 and all(isinstance(size, int) for size in owner.shape):
        # FLUX's schedule: as many numbers as the tensor has, their values not followed; `.item()`
        # of one element (a sampled action of shape (1,)) is one number
        return ListValue([Number() for _ in range(owner.shape[0])]) if owner.shape and name == "tolist" else Number()
    if isinstance(owner, TensorValue):
        # a method not followed: what it returns requires grad as its operands do
        grad = method_grad(owner, name, args, replay.grad_mode == "grad")
        return TensorValue(None, grad, data_sized=owner.data_sized)
    raise StopReplay(f"method {name}")


def _container_method(owner: ListValue | ModuleDict, name: str, args: list):
    """A list's append (a sampler's images, a decoder's tokens); a ModuleList's or ModuleDict's
    children (torchtitan's `for layer_id, block in model.layers.named_children(): block.compile()`)."""
    if name in ("children", "named_children") and not args:
        named = owner.items.items() if isinstance(owner, ModuleDict) else enumerate(owner.items)
        return ListValue([ListValue([Const(str(key)), item]) if name == "named_children" else item
                          for key, item in named])
    if isinstance(owner, ListValue) and name == "append" and len(args) == 1:
        owner.items.append(args[0])
        return Const(None)
    raise StopReplay(f"method {name}")


def _copied(method: str, result: TensorValue) -> bool:
    """`.contiguous()` of a view is a fresh tensor, unless a dimension of size 1 (or one not
    known) lets torch call the view contiguous already, its strides kept (measured:
    tuned/growth_then_crop.py, `idx[:, -4:].contiguous()` of a (1, 5) sequence recompiles on
    its stride)."""
    return method == "contiguous" and result.shape is not None and all(
        isinstance(size, int) and size != 1 for size in result.shape)
