"""A module a driver calls (drivers.py), by what calling it compiles: a compiled module is a
frame; a module whose own `forward` carries `@torch.compile()` is one too (every instance of its
class shares that code object, as compiled blocks do); a module holding compiled parts runs its
`forward` eagerly, replayed statement by statement, and each compiled module or function it
calls is a frame of its own with its own call sequence (minRF's MMDiT: the blocks, attention and
timestep embedder decorated, the model's forward eager); a module holding nothing compiled is
read for what it returns and rebinds (effects.py). torch.nn layers called eagerly give the shape
shapes.py follows, a tensor not followed otherwise."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from .declarations import compile_setting, holds_compiled, is_compile, method_of
from .project_calls import bind, inline
from .shapes import ShapeUnknown, layer_output
from .stops import StopReplay
from .syntax import dotted, forward_of
from .values import Compiled, Const, Instance, Layer, ListValue, TensorValue

if TYPE_CHECKING:
    from .drivers import Replay


def module_call(replay: Replay, instance: Instance, args: list, node: ast.Call, kwargs: dict):
    """`instance(*args, **kwargs)` called eagerly (from the driver or an eager forward)."""
    forward = forward_of(instance.cls)
    grad = replay.grad_mode == "grad"
    dunder_call = method_of(instance.cls, "__call__")
    if forward is None and dunder_call is not None:  # an object of the file's that is not a module
        return inline(replay, dunder_call, [instance, *args], kwargs, {})
    if replay.eager_call is not None and args and isinstance(args[0], TensorValue):
        # called from a forward dynamo skipped: dynamo compiles the module's forward as a frame
        replay.record(instance, forward, args, None, 0, replay.eager_call, regional=True)
        x = args[0]
        return TensorValue(x.shape, grad and (instance.has_parameters() or x.requires_grad))
    if instance.compiled:
        return replay.compiled_call(Compiled(instance, instance.dynamic, instance.compile_line), args, node, kwargs)
    if "forward" in instance.attributes:  # `model.forward = torch.compile(model.forward)`: what __call__ runs
        if not isinstance(instance.attributes["forward"], Compiled):
            raise StopReplay("a forward replaced")
        return replay.compiled_call(instance.attributes["forward"], args, node, kwargs)
    decorator = _compile_decorator(forward)
    if decorator is not None:
        compiled = Compiled(instance, compile_setting(decorator), forward.lineno)
        return replay.compiled_call(compiled, args, node, kwargs, regional=True)
    if not holds_compiled(instance, replay.rebound.keys() | replay.compiled_functions.keys()):
        # gpt-fast's prefill run eagerly: what its forward returns and rebinds, as for a frame
        return replay.after_call(forward, instance, args)
    blocks = [v for v in instance.attributes.values()
              if isinstance(v, ListValue) and any(isinstance(i, Instance) and i.compiled for i in v.items)]
    if len(blocks) == 1 and args and isinstance(args[0], TensorValue) and not kwargs:
        x = args[0]
        if not _input_reaches_blocks(forward):
            # what forward computes before its blocks is not replayed: its shape is not known, nor,
            # under grad mode, whether it requires grad (realcode2/minrf_dit.py: embedded, it does)
            x = TensorValue(None, False if replay.grad_mode != "grad" and x.requires_grad is False else None)
        return _compiled_blocks(replay, blocks[0], x, node)
    if forward is None or blocks:
        raise StopReplay("eager module")
    return inline(replay, forward, [instance, *args], kwargs, {})


def _input_reaches_blocks(forward: ast.FunctionDef | None) -> bool:
    """A forward whose first statement loops over its blocks, its input not rebound before
    (`for block in self.blocks: x = block(x)`): the first block gets the module's input."""
    if forward is None or len(forward.args.args) < 2 or not forward.body:
        return False
    loop, given = forward.body[0], forward.args.args[1].arg
    if not (isinstance(loop, ast.For) and isinstance(loop.target, ast.Name) and loop.body
            and isinstance(loop.iter, ast.Attribute) and dotted(loop.iter.value) == forward.args.args[0].arg):
        return False
    step = loop.body[0]
    return isinstance(step, ast.Assign) and isinstance(step.value, ast.Call) and dotted(
        step.value.func) == loop.target.id and bool(step.value.args) and dotted(step.value.args[0]) == given


def _compile_decorator(forward: ast.FunctionDef | None) -> ast.expr | None:
    """The `@torch.compile(...)` on a module's forward, None where there is none."""
    return next((d for d in forward.decorator_list if is_compile(d)), None) if forward is not None else None


def _compiled_blocks(replay: Replay, blocks: ListValue, x: TensorValue, node: ast.Call):
    """A forward not replayed around one list of compiled blocks: each block is called in turn on
    the last one's output, of the same shape (torchtitan's apply_compile)."""
    grad = replay.grad_mode == "grad"
    for block in blocks.items:
        if not (isinstance(block, Instance) and block.compiled):
            raise StopReplay("mixed blocks")
        replay.record(block, forward_of(block.cls), [x], block.dynamic, block.compile_line, node, regional=True)
        x = TensorValue(x.shape, grad and (block.has_parameters() or x.requires_grad))
    return x


def layer_call(replay: Replay, layer: Layer, args: list):
    """A torch.nn layer called eagerly: no frame, its output's shape where shapes.py follows it
    (a loss, a 0-d tensor unless it reduces nothing)."""
    if layer.name.endswith("Loss") and layer.options.get("reduction", "mean") != "none":
        return TensorValue((), None)  # `criterion(out, target)` in the driver
    try:
        return replay.made_here(layer_output(layer, args, replay.grad_mode == "grad"))
    except ShapeUnknown:
        return TensorValue(None, None)


def sequential_call(replay: Replay, sequential: ListValue, args: list, node: ast.Call, kwargs: dict):
    """An nn.Sequential called eagerly: each module in turn on the last one's output."""
    if len(args) != 1 or kwargs:
        raise StopReplay("a Sequential called with more than one input")
    x = args[0]
    for module in sequential.items:
        if isinstance(module, Layer):
            x = layer_call(replay, module, [x])
        elif isinstance(module, Instance):
            x = module_call(replay, module, [x], node, {})
        else:
            raise StopReplay("a Sequential of modules not followed")
    return x


def run_eagerly(replay: Replay, instance: Instance, args: list, node: ast.Call):
    """The forward dynamo skipped, run eagerly: the project modules it calls are frames."""
    forward = forward_of(instance.cls)
    env = bind(forward, [instance, *args], {}, replay)
    saved, replay.eager_call = replay.eager_call, node
    try:
        for statement in forward.body:
            if isinstance(statement, ast.Return):
                return replay.expr(statement.value, env) if statement.value else Const(None)
            replay.statement(statement, env)
    finally:
        replay.eager_call = saved
    return Const(None)
