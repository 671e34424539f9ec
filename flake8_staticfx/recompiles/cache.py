"""Replay dynamo's cache of compiled entries over the calls a file's drivers make.

Per code object (a forward shared by every block of a class is one), dynamo keeps up to
RECOMPILE_LIMIT entries. A call that matches no entry compiles a new one, or, at the limit, runs
the frame eagerly from then on. A new entry keeps a constant's value; a tensor dimension or a
SCALAR that already changed once is symbolic in it (automatic dynamic), unless the compile said
dynamic=False; with dynamic=True they are symbolic from the first compile.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace

from .. import rules
from ..ir import Graph, GraphBreakRegion
from .drivers import Call, Replay
from .arithmetic import COMPARE
from .declarations import grad_decorator, is_compile
from .self_state import COUNT, called_children, forward_increments
from .frames import BRANCH, CONSTANT, COUNTER, SCALAR, TENSOR, TRAINING, Guarded, guarded_inputs, tensor_guard
from .keywords import keyword_guards
from .syntax import frame_line
from .values import (UNKNOWN, Const, DictValue, Function, Instance, Lambda, Layer, ListValue, ModuleDict, Opaque,
                     TensorValue)

RECOMPILE_LIMIT = 8  # torch._dynamo.config.recompile_limit in torch 2.13, 2.14 and 2.15
# The releases where a tensor indexed by a 0-d int tensor (`buf[t]`) reads it with .item() and
# guards on its value (tuned/tensor_index.py: 4 compiles for 4 values on 2.13, 1 on 2.14.1).
ITEM_INDEX_GUARDED = frozenset({"2.13"})
DYNAMIC = object()  # an entry's symbolic slot: any value matches
# nn.Module's own methods a forward calls on self (`next(self.parameters()).dtype`): functions of
# the class, the same at every call.
MODULE_METHODS = frozenset({"parameters", "named_parameters", "buffers", "named_buffers", "modules",
                            "named_modules", "children", "named_children"})


@dataclass(frozen=True)
class Recompile:
    """A place that makes a compiled frame recompile over the file's call sequence."""

    rule: rules.Rule
    line: int
    col: int
    construct: str
    guard: str  # the guard that fails, as dynamo prints it
    frame: str  # the compiled function
    frame_line: int
    compiles: int  # compiles of the frame over the calls
    calls: int
    eager_after_limit: bool
    call_line: int  # the driver's call
    driver: str
    at_least: bool = False  # the frame's inputs not all followed: `compiles` is a lower bound
    # Claimed for any caller calling the module more than once (self_state.py), no driver
    # describing the calls: `compiles` is the limit, `calls` and `call_line` 0, `driver` ''.
    any_caller: bool = False
    conditions: tuple[str, ...] = ()  # when the claim holds: "when compiled", "in training"
    fix: str | None = None  # the fix of the construct's form, when it is not the rule's


@dataclass
class FrameCompiles:
    """One compiled code object over the calls: how often it compiled and why."""

    frame: ast.FunctionDef
    driver: str
    root: str  # as the analysis names its roots: `Net.forward`, `step`
    compiles: int = 0
    calls: int = 0
    eager_after_limit: bool = False
    known: bool = True  # False: an input or a call the replay does not follow; no count is claimed
    causes: list = field(default_factory=list)  # (Guarded, Call) per recompile

    @property
    def first_line(self) -> int:
        """The line dynamo names the frame by (its code's co_firstlineno: the first decorator's)."""
        return frame_line(self.frame)


def predict(tree: ast.Module, skipped_classes: frozenset[str] = frozenset(), torch: str = "2.13",
            partly_eager: dict[str, bool] | None = None, resumed: dict[str, int] | None = None,
            ) -> tuple[list[FrameCompiles], list[Recompile]]:
    """The compiles of each frame the file's drivers call, and the places that recompile it.
    `skipped_classes`: the classes whose forward dynamo gives up on (the interpreter's breaks);
    `torch`: the release answered for (its minor version); `partly_eager`: the classes whose
    forward runs eagerly after a break, each with whether a graph is compiled before it (then
    only a lower bound is claimed, else nothing); `resumed`: per class, the
    line of the first break in forward that dynamo resumes after in a frame of its own."""
    replay = Replay(tree, skipped_classes)
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}

    partly_eager = partly_eager or {}

    def compiles(calls: list[Call]) -> FrameCompiles:
        if _runs_partly_eager(calls[0], partly_eager):
            if not partly_eager[calls[0].instance.cls.name]:
                return _partly_eager(calls[0])
            # what the graph before the break reads is not told apart from what the eager rest
            # reads: only the global state is claimed
            calls = [replace(call, followed=False, args=[UNKNOWN for _ in call.args]) for call in calls]
            return _replay_cache(calls, torch, classes, replay.functions)
        result = _replay_cache(calls, torch, classes, replay.functions)
        resume = (resumed or {}).get(calls[0].instance.cls.name) if calls[0].instance is not None and calls[
            0].frame.name == "forward" else None
        if resume is not None and result.known:
            # the guards read after the break are the resume frame's: its recompiles stay claimed
            # at their lines, and forward's own count leaves them out (measured:
            # tuned/self_state.py, break_before_counter: forward compiles once, the rest 4 times)
            own = _replay_cache(calls, torch, classes, replay.functions, before=resume)
            result.compiles, result.eager_after_limit = own.compiles, own.eager_after_limit
        return result

    frames = {key: compiles(calls) for key, calls in _by_frame(replay.run_drivers()).items()}
    for frame in frames.values():
        frame.known = frame.known and frame.driver not in replay.stopped
    for key, calls in _by_frame(replay.run_coarsely()).items():
        frames[key] = _at_least(frames[key], compiles(calls)) if key in frames else compiles(calls)
    return list(frames.values()), [r for frame in frames.values() for r in _recompiles(frame)]


def _by_frame(calls: list[Call]) -> dict[tuple[str, int], list[Call]]:
    """The calls of each frame, per driver (each runs in a process of its own)."""
    found: dict[tuple[str, int], list[Call]] = {}
    for call in calls:
        found.setdefault((call.driver, id(call.frame)), []).append(call)
    return found


def _at_least(exact: FrameCompiles, coarse: FrameCompiles) -> FrameCompiles:
    """A frame's compiles over a stopped driver's calls up to its stop, raised by what the coarse
    replay of the whole driver shows (coarse.py): both are lower bounds, and so are their causes."""
    exact.compiles = max(exact.compiles, coarse.compiles)
    exact.calls = max(exact.calls, coarse.calls)
    exact.causes += coarse.causes
    exact.known = False
    return exact


def skipped_forwards(graphs: list[Graph], tree: ast.Module, path: str) -> frozenset[str]:
    """The classes of the file whose whole forward dynamo runs eagerly: a break in forward's own
    code that dynamo cannot resume after (in a loop, a `with` block)."""
    return frozenset(_breaking_forwards(graphs, tree, path, rest=False))


def partly_eager_forwards(graphs: list[Graph], tree: ast.Module, path: str) -> dict[str, bool]:
    """The classes of the file whose forward runs eagerly after a break in its own code (an
    nn.LSTM call in 2.13 and 2.14), each with whether dynamo compiles a graph before the break:
    a module or function call there. With one, the frame recompiles on the global state
    (measured: realcode3/word_language_model.py, an embedding and dropout before the LSTM;
    realcode5/seq2seq_translation.py, before a GRU); without, it compiles once whatever the
    batch and grad mode (realcode4/mnist_rnn.py, tuned/data_loader_batches.py: a reshape)."""
    return {name: any(node.op in ("call_module", "call_function") and graph.position(node) < min(
                graph.position(n) for n in region.nodes) for node in graph.nodes) if region.nodes else False
            for name, (graph, region) in _breaking_forwards(graphs, tree, path, rest=True).items()}


def resumed_forwards(graphs: list[Graph], tree: ast.Module, path: str) -> dict[str, int]:
    """Per class of the file, the line of the first break in forward's own code that dynamo
    resumes after, running the rest of forward as a frame of its own (a print)."""
    forwards = _forwards(tree)
    found: dict[str, int] = {}
    for graph in graphs:
        forward = forwards.get(graph.root)
        lines = [region.construct_line for region in graph.regions if region.frame_skipped is None
                 and region.construct_file == path and forward is not None
                 and forward.lineno < region.construct_line <= forward.end_lineno] if forward else []
        if lines:
            found[graph.root.split(".")[0]] = min(lines)
    return found


def _forwards(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {f"{node.name}.forward": item for node in tree.body if isinstance(node, ast.ClassDef)
            for item in node.body if isinstance(item, ast.FunctionDef) and item.name == "forward"}


def _breaking_forwards(graphs: list[Graph], tree: ast.Module, path: str,
                       rest: bool) -> dict[str, tuple[Graph, GraphBreakRegion]]:
    """Per class, forward's graph and its first break in forward's own code after which the rest
    of forward runs eagerly (`rest`), else that makes dynamo give up on forward whole."""
    forwards = _forwards(tree)
    found = {}
    for graph in graphs:
        forward = forwards.get(graph.root)
        region = next((region for region in graph.regions if forward is not None and region.frame_skipped == "forward"
                       and region.skips_rest == rest and region.construct_file == path
                       and forward.lineno <= region.construct_line <= forward.end_lineno), None)
        if region is not None:
            found.setdefault(graph.root.split(".")[0], (graph, region))
    return found


def _runs_partly_eager(call: Call, partly_eager: dict[str, bool]) -> bool:
    return call.instance is not None and call.frame.name == "forward" and call.instance.cls.name in partly_eager


def _partly_eager(call: Call) -> FrameCompiles:
    """A forward that runs eagerly after a break in its own code, nothing compiled before it: no
    count, no recompile claimed."""
    return FrameCompiles(call.frame, call.driver, f"{call.instance.cls.name}.forward", known=False)


def _replay_cache(calls: list[Call], torch: str, classes: dict[str, ast.ClassDef],
                  functions: dict[str, ast.FunctionDef], before: int | None = None) -> FrameCompiles:
    """`before`: only the guards of the inputs and of the lines up to it (a frame ending at a
    break there)."""
    frame = calls[0].frame
    is_method = calls[0].instance is not None
    instance = calls[0].instance
    guarded = guarded_inputs(frame, is_method, instance.training_attributes() if instance else frozenset())
    guarded += keyword_guards(frame, is_method, functions)
    if instance is not None and frame.name == "forward":
        guarded += _method_counters(frame, instance.cls, classes, {guard.name for guard in guarded})
        guarded += _child_counters(instance, classes)
    if before is not None:
        guarded = [guard for guard in guarded if guard.kind in (SCALAR, TENSOR) or guard.line <= before]
    root = f"{instance.cls.name}.{frame.name}" if instance is not None else frame.name
    result = FrameCompiles(frame, calls[0].driver, root)
    # @torch.inference_mode() on the frame: dynamo compiles torch's wrapper frame, which inlines
    # this one (measured on realcode/llama_decode.py): no count of this frame, and the guards
    # without a line of their own (shapes, global state) are the wrapper's
    wrapped = any(not is_compile(d) for d in frame.decorator_list)
    if any(not is_compile(d) and grad_decorator(d) is None for d in frame.decorator_list):
        return FrameCompiles(frame, calls[0].driver, root, known=False)
    if any(c.instance is not None and c.instance.has_opaque() for c in calls) and (
            len({id(c.instance) for c in calls}) > 1 or len({c.training for c in calls}) > 1):
        # what an opaque attribute holds may differ between blocks, or read `training`: only
        # what no attribute changes is claimed
        return _surely_new(result, calls, 0, guarded) if not wrapped else _wrapper(result, calls)
    entries: list[dict] = []
    first_seen: dict = {}
    changed: set = set()
    for number, call in enumerate(calls):
        result.calls += 1
        if call.skipped:  # compiled once, then marked to skip: it runs eagerly from then on
            result.compiles = 1
            continue
        key = _key(frame, guarded, call, number, torch) if call.followed else None
        if key is None:
            return _surely_new(result, calls, number, guarded) if not wrapped else _wrapper(result, calls)
        if any(_matches(entry, key) for entry in entries) or result.eager_after_limit:
            continue
        if len(entries) >= RECOMPILE_LIMIT:
            result.eager_after_limit = True
            continue
        if entries and not wrapped:
            result.causes.append((_cause(entries[-1], key), call))
        elif entries and _only_in_body(frame, entries[-1], key):
            # the wrapper's guards come first, in an order not measured: only a guard of the
            # body failing alone is claimed (realcode/ddpm_p_sample.py: `t > 0` at t = 0)
            result.causes.append((_cause(entries[-1], key), call))
        for slot, value in key.items():
            first_seen.setdefault(slot, value)
            if first_seen[slot] != value:
                changed.add(slot)
        entries.append({slot: DYNAMIC if _symbolic(slot, call.dynamic, changed) and not _specialized(slot, value)
                        else value for slot, value in key.items()})
        result.compiles += 1
    return result if not wrapped else _wrapper(result, calls)


def _method_counters(frame: ast.FunctionDef, cls: ast.ClassDef, classes: dict[str, ast.ClassDef],
                     known: set[str]) -> list[Guarded]:
    """The counters the module's methods forward calls increment (`self._tick()`), inlined in
    forward's frame and guarded at their own line (measured: tuned/self_state.py, tick_method)."""
    return [Guarded(COUNTER, f"self.{write.attribute}", None, write.line, write.col, write.construct,
                    in_training=write.in_training)
            for write in forward_increments(cls, classes)
            if write.kind == COUNT and not frame.lineno <= write.line <= frame.end_lineno and f"self.{write.attribute}" not in known]


def _child_counters(instance: Instance, classes: dict[str, ast.ClassDef]) -> list[Guarded]:
    """The counters the forward of a child module increments, the child called on every call
    and not compiled apart: inlined in the parent's frame, guarded at the child's line
    (measured: tuned/self_state.py, child_counter; the guard `self._modules['inner'].calls`)."""
    found = []
    for name in sorted(called_children(instance.cls, classes)):
        child = instance.attributes.get(name)
        if isinstance(child, Instance) and not child.compiled:
            found += [Guarded(COUNTER, f"self.{name}.{write.attribute}", None, write.line, write.col, write.construct,
                              in_training=write.in_training)
                      for write in forward_increments(child.cls, classes) if write.kind == COUNT]
    return found


def _wrapper(result: FrameCompiles, calls: list[Call]) -> FrameCompiles:
    """A frame compiled through torch's wrapper: its own compiles are not counted."""
    result.known, result.calls = False, len(calls)
    return result


def _only_in_body(frame: ast.FunctionDef, entry: dict, key: dict) -> bool:
    failing = {slot[0] for slot, expected in entry.items() if expected is not DYNAMIC and key.get(slot) != expected}
    return len(failing) == 1 and next(iter(failing)).line > frame.lineno


def _surely_new(result: FrameCompiles, calls: list[Call], first_unknown: int,
                guarded: list[Guarded]) -> FrameCompiles:
    """From the call whose inputs are not all followed on, the cache's entries are not known: the
    recompiles found before it stay true, and after it only what the guards dynamo never makes
    symbolic tell: the global state (grad mode, autocast) and a tensor input's requires_grad and
    rank (`_exact_slots`). Two calls that differ there cannot share an entry, so each call that
    differs from every call counted before it (and from every call before `first_unknown`) needs
    an entry of its own: the count is a lower bound, capped at RECOMPILE_LIMIT. Such a call that
    differs from every earlier call recompiles (before RECOMPILE_LIMIT calls the limit cannot have
    been reached), claimed where the guard failing first is surely one of the frame's own line
    (`_surely_failing`; measured: realcode/nanogpt_train.py, eval under no_grad;
    realcode5/char_rnn_generation.py, `hidden` made by zeros then by the RNN)."""
    result.known, result.calls = False, len(calls)
    inputs = _read_inputs(result.frame, calls[0].instance is not None)
    slots = [_exact_slots(inputs, call) for call in calls]
    counted = list(range(first_unknown))
    for number, call in enumerate(calls[first_unknown:], first_unknown):
        if call.skipped or not all(_differ(slots[number], slots[other]) for other in counted):
            continue
        counted.append(number)
        result.compiles = min(result.compiles + 1, RECOMPILE_LIMIT)
        # the coarse replay's loops run once: its call numbers do not bound the entries before
        limit_unreached = number < RECOMPILE_LIMIT or not call.followed
        if 0 < number and limit_unreached and all(
                _differ(slots[number], earlier) for earlier in slots[:number]):
            cause = _surely_failing(result.frame, inputs, guarded, calls[:number + 1], slots[:number + 1])
            if cause is not None:
                result.causes.append((cause, call))
    change = _size_change(result.frame, inputs, guarded, calls)
    if change is not None:
        result.compiles = max(result.compiles, 2)
        if not any(guard.line == change[1].line for guard, _ in result.causes):
            result.causes.append((change[1], calls[change[0]]))
    return result


def _size_change(frame: ast.FunctionDef, inputs: dict[int, str], guarded: list[Guarded],
                 calls: list[Call]) -> tuple[int, Guarded] | None:
    """The first call presenting a tensor input with a known size, at one dimension, other than an
    earlier call's: the entry compiled for the earlier size keeps it (sizes are static until one
    changes), so another compile serves this one and the frame compiles at least twice, the
    tensor's guard failing first (the frame's line) unless an int parameter changed too (its
    guard comes first: `_cause`). Not with dynamic=True, a dimension marked dynamic, or an input
    the frame never reads (measured: realcode6/knowledge_distillation.py, the last batch of 72
    after batches of 128 under the coarse replay; tuned/shapes_default.py)."""
    if any(call.dynamic is True for call in calls):
        return None
    first: dict = {}
    for number, call in enumerate(calls):
        for index, arg in enumerate(call.args):
            shape = arg.guard_shape() if isinstance(arg, TensorValue) and not call.skipped and index in inputs else None
            for dim, size in enumerate(shape or ()):
                if size is not None and first.setdefault((index, len(shape), dim), size) != size:
                    if not all(_same_number(guard, calls[:number + 1]) for guard in guarded if guard.kind == SCALAR):
                        return None
                    return number, Guarded(TENSOR, f"tensor '{inputs[index]}' size mismatch at index {dim}", index,
                                           frame_line(frame), frame.col_offset, f"def {frame.name}")
    return None


def _read_inputs(frame: ast.FunctionDef, is_method: bool) -> dict[int, str]:
    """The frame's parameters after self that it reads, by position: an input it never reads is
    guarded on nothing."""
    read = {node.id for node in ast.walk(frame) if isinstance(node, ast.Name)}
    params = [a.arg for a in frame.args.args][1 if is_method else 0:]
    return {index: name for index, name in enumerate(params) if name in read}


def _exact_slots(inputs: dict[int, str], call: Call) -> dict:
    """What the call presents to the guards dynamo never makes symbolic, where it is known: the
    global state, and each tensor input's requires_grad and rank (measured: realcode4/dcgan.py,
    realcode5/char_rnn_generation.py, seq2seq_translation.py)."""
    found: dict = {"global": (call.grad_mode, call.autocast)}
    for index, arg in enumerate(call.args):
        if not (isinstance(arg, TensorValue) and index in inputs):
            continue
        if arg.requires_grad is not None:
            found[(index, "requires_grad")] = arg.requires_grad
        if arg.shape is not None:
            found[(index, "rank")] = len(arg.shape)
    return found


def _differ(one: dict, other: dict) -> bool:
    """Two calls surely different in a slot known in both."""
    return any(slot in other and other[slot] != value for slot, value in one.items())


def _surely_failing(frame: ast.FunctionDef, inputs: dict[int, str], guarded: list[Guarded], calls: list[Call],
                    slots: list[dict]) -> Guarded | None:
    """The guard that fails first at the last call, which differs from every earlier one: the
    global state where it differs from every earlier call's; else, all calls in one global state,
    a tensor input's (the frame's line), unless an int parameter, whose guard dynamo checks before
    the tensors', may have changed (`_cause`); None where that is not sure."""
    *earlier, last = slots
    if all(last["global"] != other["global"] for other in earlier):
        return _global_state(frame)
    if any(last["global"] != other["global"] for other in earlier) or any(
            not _same_number(guard, calls) for guard in guarded if guard.kind == SCALAR):
        return None
    named = next((slot for slot, value in last.items() if slot != "global"
                  and all(slot in other and other[slot] != value for other in earlier)), None)
    # dynamo's words for the slot that differs from every earlier call (it checks requires_grad first)
    what = f"tensor '{inputs[named[0]]}' {named[1]} mismatch" if named else "a tensor's requires_grad or rank"
    return Guarded(TENSOR, what, named[0] if named else None, frame_line(frame), frame.col_offset, f"def {frame.name}")


def _same_number(guard: Guarded, calls: list[Call]) -> bool:
    """A SCALAR input known and the same at every call: its guard cannot fail."""
    values = [_guarded_value(guard, call, number) for number, call in enumerate(calls)]
    return values[0] is not UNKNOWN and all(value == values[0] for value in values)


def _global_state(frame: ast.FunctionDef) -> Guarded:
    return Guarded("global", "global state", None, frame_line(frame), frame.col_offset, f"def {frame.name}")


def _symbolic(slot: tuple, dynamic: bool | None, changed: set) -> bool:
    """A number or a tensor's size or stride made symbolic; a tensor's requires_grad, dispatch
    keys and rank never are (measured: realcode4/dcgan.py, the discriminator fed `fake.detach()`
    then `fake` recompiles on requires_grad again once its batch is dynamic)."""
    guard = slot[0]
    if guard.kind not in (SCALAR, TENSOR) or dynamic is False or slot[1] in _EXACT_TENSOR_SLOTS:
        return False
    return dynamic is True or slot in changed


_EXACT_TENSOR_SLOTS = ("requires_grad", "inference", "rank")


def _key(frame: ast.FunctionDef, guarded: list[Guarded], call: Call, number: int, torch: str) -> dict | None:
    """The values the frame's guards check at this call, by slot (the guard, a dimension)."""
    key: dict = {}
    params = [a.arg for a in frame.args.args][1 if call.instance is not None else 0:]
    for guard in guarded:
        attribute = call.attributes.get(guard.name[5:]) if guard.index is None else None
        if guard.kind in (CONSTANT, COUNTER) and isinstance(attribute, TensorValue) and attribute.shape is not None:
            # a tensor attribute is guarded as an input is: by shape, with automatic dynamic
            # (measured: a key cache grown by torch.cat compiles 3 times, sizes 0 and 1 kept)
            _tensor_slots(key, Guarded(TENSOR, guard.name, None, frame_line(frame), frame.col_offset,
                                       f"def {frame.name}"), attribute)
            continue
        value = _guarded_value(guard, call, number)
        if guard.kind == BRANCH:
            value = _outcome(guard, value)
        if value is UNKNOWN:
            return None
        if guard.kind == CONSTANT and guard.container and isinstance(
                _container(guard.container, call, params), TensorValue):
            index = call.args[guard.index] if guard.index is not None and guard.index < len(call.args) else None
            if isinstance(index, TensorValue) and index.shape == ():
                # a tensor indexed by a 0-d tensor: read with .item() (2.13) or traced as a tensor
                value = ("item", index.value) if torch in ITEM_INDEX_GUARDED else ("tensor",)
            else:
                return None  # a tensor indexed by an int: not measured, no claim
        elif guard.kind == CONSTANT and guard.container and guard.index is not None and isinstance(
                call.args[guard.index], TensorValue):
            return None  # a list indexed by a tensor: dynamo breaks the graph there; not followed
        elif guard.kind in (CONSTANT, COUNTER) and guard.index is None and isinstance(value, tuple) and value[:2] == (
                "const", "float"):
            # a float attribute is no constant: a second value makes it symbolic (measured:
            # per-block float scales compile twice, and a float the forward decays)
            guard = Guarded(SCALAR, guard.name, guard.index, guard.line, guard.col, guard.construct)
        key[(guard, None)] = value
    for index, arg in enumerate(call.args):
        if isinstance(arg, TensorValue):
            guard = tensor_guard(frame, index, params[index] if index < len(params) else "?")
            if not _tensor_slots(key, guard, arg):
                return None
    key[(_global_state(frame), None)] = (call.grad_mode, call.autocast)
    return key


def _outcome(guard: Guarded, value):
    """A BRANCH's test on the number passed (UNKNOWN for anything else)."""
    if not (isinstance(value, tuple) and value[:1] == ("const",) and type(value[2]) in (int, float)):
        return UNKNOWN
    op, number = guard.compared
    return COMPARE[op](value[2], number)


def _tensor_slots(key: dict, guard: Guarded, tensor: TensorValue) -> bool:
    """A tensor's guarded properties into `key`; False when its shape or requires_grad is not known."""
    shape = tensor.guard_shape()
    if shape is None or tensor.requires_grad is None:
        return False
    key[(guard, "requires_grad")] = tensor.requires_grad
    key[(guard, "inference")] = tensor.inference
    key[(guard, "rank")] = len(shape)
    for dim, size in enumerate(shape):
        key[(guard, dim)] = DYNAMIC if size is None else size
    for dim, stride in enumerate(tensor.guard_strides()):
        key[(guard, ("stride", dim))] = stride
    return True


def _guarded_value(guard: Guarded, call: Call, number: int):
    if guard.kind == TRAINING:
        return call.training
    if guard.item is not None:  # a keyword the frame's **kwargs took: absent, the callee's default
        keywords = call.args[guard.index] if guard.index < len(call.args) else UNKNOWN
        return UNKNOWN if not isinstance(keywords, DictValue) else _identity(
            keywords.items[guard.item]) if guard.item in keywords.items else ("absent",)
    if guard.index is not None:
        if guard.index >= len(call.args):
            return _identity(_default(call, guard.index))
        return _identity(call.args[guard.index])
    name = guard.name.split(".", 1)[1]
    value = _attribute(call.attributes, name)
    if value is UNKNOWN and call.instance is not None and (name in MODULE_METHODS or any(
            isinstance(n, ast.FunctionDef) and n.name == name for n in call.instance.cls.body)):
        return ("method", name)  # self.get_scalings, self.parameters: the class's function, the same at every call
    if guard.kind == COUNTER:
        return _count(guard, value, call, number)
    if isinstance(value, Opaque):
        return ("opaque", id(call.instance))  # unchanged between calls on one instance
    if isinstance(value, (Layer, Instance, ListValue, ModuleDict)):
        return ("module", type(value).__name__, getattr(value, "name", None) or getattr(value, "cls", None))
    if isinstance(value, TensorValue):
        return ("tensor", value.shape)
    return _identity(value)


def _count(guard: Guarded, value, call: Call, number: int):
    """What a counter the frame rebinds holds at the call: a new number at each call, one of two
    values for a bool (measured: a bool toggled compiles twice), the same in eval mode when it
    counts in training only; a tensor rebound is guarded on nothing new."""
    if isinstance(value, TensorValue):
        return ("tensor",)
    if isinstance(value, ListValue):
        return ("list", len(value.items))  # a list appended to: guarded on its length
    if not isinstance(value, Const):
        return UNKNOWN
    if guard.in_training and not call.training:
        return ("eval",)
    if isinstance(value.value, bool):
        return ("const", "bool", number % 2 == 0)
    return ("const", type(value.value).__name__, number)


def _attribute(attributes: dict, name: str):
    """`inner.calls`: an attribute of a child module, read through the child's attributes."""
    head, _, rest = name.partition(".")
    value = attributes.get(head, UNKNOWN)
    if not rest:
        return value
    return _attribute(value.attributes, rest) if isinstance(value, Instance) else UNKNOWN


def _default(call: Call, index: int):
    """The constant default of the frame's parameter at `index` (after self), the call not
    passing it; UNKNOWN for any other default."""
    params = call.frame.args.args[1 if call.instance is not None else 0:]
    defaults = call.frame.args.defaults
    at = index - (len(params) - len(defaults))
    if 0 <= at < len(defaults) and isinstance(defaults[at], ast.Constant):
        return Const(defaults[at].value)
    return UNKNOWN


def _identity(value):
    """What a guard compares: a number or string by value, a function by object, a lambda by
    code, a tensor not here (its own slots)."""
    if isinstance(value, Const):
        return ("const", type(value.value).__name__, value.value)
    if isinstance(value, (Function, Lambda)):
        return value
    if isinstance(value, TensorValue):
        return ("tensor",)
    if isinstance(value, ListValue):
        return ("list", len(value.items))
    if isinstance(value, DictValue):
        return ("dict", frozenset(value.items))  # its keys, not their order
    return UNKNOWN


def _container(text: str, call: Call, params: list[str]):
    """What an index reads from: a module attribute, or an argument of the call."""
    if text.startswith("self."):
        return call.attributes.get(text[5:])
    if text in params and params.index(text) < len(call.args):
        return call.args[params.index(text)]
    return None


def _specialized(slot: tuple, value) -> bool:
    """A dimension of size 0 or 1 is never symbolic: dynamo specialises it (and a symbolic
    dimension does not take those sizes)."""
    return isinstance(slot[1], int) and value in (0, 1)


def _matches(entry: dict, key: dict) -> bool:
    return entry.keys() == key.keys() and all(
        expected is DYNAMIC and not _specialized(slot, key[slot]) or expected == key[slot]
        for slot, expected in entry.items())


def _cause(entry: dict, key: dict) -> Guarded:
    """The guard of the newest entry that fails first: global state, an int parameter, tensors,
    then the other inputs in source order (measured: an int used in arithmetic is reported before
    a tensor's requires_grad, a float after it; tuned/fed_back.py)."""
    failing = [(slot[0], key.get(slot)) for slot, expected in entry.items()
               if expected is not DYNAMIC and key.get(slot) != expected]
    changed = {guard.name for guard, _ in failing if guard.kind == SCALAR}
    failing = [(guard, value) for guard, value in failing if guard.kind != BRANCH or guard.name not in changed]
    guard, _ = min(failing, key=lambda item: (
        item[0].kind != "global", not _int_parameter(*item), item[0].kind != TENSOR, item[0].line, item[0].col))
    return guard


def _int_parameter(guard: Guarded, value) -> bool:
    return guard.kind == SCALAR and isinstance(value, tuple) and value[:2] == ("const", "int")


RULE_OF_KIND = {CONSTANT: "PYTHON_CONSTANT_INPUT", COUNTER: "COUNTER_IN_FORWARD",
                SCALAR: "CHANGING_NUMBER", BRANCH: "CHANGING_NUMBER", TENSOR: "CHANGING_SHAPE",
                TRAINING: "GLOBAL_STATE", "global": "GLOBAL_STATE"}


def _recompiles(frame: FrameCompiles) -> list[Recompile]:
    found: dict[tuple, Recompile] = {}
    for guard, call in frame.causes:
        rule = getattr(rules, RULE_OF_KIND[guard.kind])
        if guard.kind == CONSTANT and guard.index is None and call.regional:
            rule = rules.PER_BLOCK_CONSTANT
        where = (guard.line, rule.code)
        if where not in found:
            found[where] = Recompile(rule, guard.line, guard.col, guard.construct, guard.name, frame.frame.name,
                                     frame.frame.lineno, frame.compiles, frame.calls, frame.eager_after_limit,
                                     call.line, call.driver, not frame.known)
    return list(found.values())
