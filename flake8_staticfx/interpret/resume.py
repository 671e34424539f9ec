"""What dynamo does after a break: whether it happens at all, which frames it gives up on, how
eagerly each frame then runs, and when a break met on some paths only is certain.

Decided where the break is raised, in this order (measured with dynamo 2.13):

1. The settings the frame runs under (the root's options, the module's own
   `torch._dynamo.config` writes, each `config.patch` on the stack) may capture the construct
   (`.item()` under capture_scalar_outputs) or drop it (a logger method in
   ignore_logger_methods): then it is no break and changes nothing.
2. A frame already running eagerly from an earlier break sees no more breaks of its own: one
   that would be reported once that earlier break is gone is kept apart, waiting on it
   (`Waiting`: the to-do list), while the frame runs eagerly because of one break only.
3. How eagerly the frame runs after it (`Eagerness`): compiled on (a break dynamo resumes after),
   the rest of the frame (`RestEagerly`: an RNN call, a sparse tensor; dynamo compiled what came
   before), or the whole frame (`WhollyEagerly`: a break in a loop, `with` or `try` block,
   property, comprehension, generator; the outermost such frame of the stack).
4. Whether the line reported runs on every call: a break under a branch of unknown outcome is
   held (`HeldBreak`) and reported when every path of a call around it breaks.

Each frame keeps its own `ResumeState`; segments.py reads the `Break` each raised break records.
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Union

from astroid import nodes

from .. import rules
from ..config import Options
from ..discover.projects import SourceModule
from ..discover.roots import config_patch
from ..ir import CapturedConstruct, Condition, Node
from ..advice import advice_for
from ..rules import Advice, Rule
from ..segments import TRACED_OPS

if TYPE_CHECKING:
    from ..values import Value
    from .frame import Frame
    from .interpreter import Interpreter


@dataclass(frozen=True)
class RestEagerly:
    """Dynamo compiles what the frame `function` traced before the break and runs the rest of it
    eagerly (`why`: an RNN module call, a sparse tensor, a tensor slice bound). `given_up`: the
    break is one dynamo gives up at (`why`: a loop, ...), in a frame it already resumed after an
    earlier break, so only its resume function, the rest of the frame, runs eagerly."""

    function: str
    why: str
    given_up: bool = False


@dataclass(frozen=True)
class WhollyEagerly:
    """Dynamo gives up on the frame `function`: the whole of it runs eagerly (`why`: the break is
    in a loop, a `with` or `try` block, a property, a comprehension or generator it runs)."""

    function: str
    why: str


# How eagerly a frame runs after a break: None, it compiles on (dynamo resumes after the break).
Eagerness = Union[RestEagerly, WhollyEagerly, None]


@dataclass(frozen=True)
class Break:
    """A break that happens, as its node records it for annotate and segments.py."""

    rule: Rule
    what: str  # the construct as written in the source
    gb_ids: tuple[str, ...]  # of this occurrence
    eagerly: Eagerness  # how dynamo runs on after it
    # The frames of the inline stack (0: the root) that cannot resume after this break: each
    # one dynamo compiles on its own is skipped (segments.py).
    skip_depths: tuple[int, ...] = ()
    # The frame that compiles what it traced before this break and runs the rest eagerly
    # (an RNN module, arithmetic on a random number: measured, probes in segments.py).
    stop_depth: int | None = None
    # The torch releases that break this way, when not all modeled ones do ('torch 2.14+').
    versions: str = ""
    # The tests on its path that decide whether it is reached (Breaks.path_conditions).
    conditions: tuple[Condition, ...] = ()
    # The workaround for this form of the construct, when the rule's own does not remove it.
    advice: Advice | None = None

    @property
    def data_dependent_shape(self) -> bool:
        """An operator whose output shape depends on the data (GB0036: `x[mask]`, `nonzero`),
        not a class count read from the data (GB0246)."""
        return "GB0036" in self.gb_ids


# A path's first break was reported where it happened (see ResumeState.path_break).
REPORTED = "reported"


@dataclass(eq=False)
class HeldBreak:
    """A break not reported because the code it is in runs only on some calls: reported later
    if every path of a call around it breaks (ResumeState.path_break)."""

    node: Node
    frame: Frame
    found: Break  # as the stack stood at the break


PathBreak = Union[HeldBreak, str, None]


@dataclass(frozen=True)
class Waiting:
    """A break dynamo does not reach because its frame runs eagerly after the break at `after`
    (a node of the graph): reported once that break is fixed, on dynamo's next run. A to-do
    item, never a break of the graph (segments.py does not read it)."""

    found: Break
    after: Node


# What each path of a branch starts from: the break every call met, how eagerly the frame runs
# on, and the break that made it run eagerly (None: not one break alone, see ResumeState).
PathState = tuple[PathBreak, Eagerness, Union[Node, None]]


@dataclass
class ResumeState:
    """Where one frame's interpretation stands, for what dynamo does after a break in it."""

    loop_depth: int = 0
    with_depth: int = 0
    try_depth: int = 0  # inside a `try` body, which dynamo cannot resume in either
    is_property: bool = False
    # Evaluating a generator, or a comprehension over enumerate(), made here: after a break in
    # it dynamo cannot rebuild the iterator to resume this frame (GB8335, measured).
    unrebuildable: str | None = None
    # Inside a branch whose outcome is not known statically (an `if` block, or a short-circuit
    # or ternary within the current statement): code here runs only on some calls.
    conditional: int = 0
    short_circuit: int = 0
    # A `return` under such a branch came before: the rest of the function runs only on some
    # calls (`if indices is None: return ones` then `torch.unique(indices)`).
    after_early_return: bool = False
    # The first break every call taking the path interpreted so far meets: a HeldBreak when it
    # was held back as conditional, REPORTED when it was reported, None before any. Each
    # `return` keeps its path's (`return_breaks`), so that a call all of whose paths break
    # breaks though no single break in it is certain (`if small: return torch.where(m)` then
    # `return x[mask]`).
    path_break: PathBreak = None
    return_breaks: list[PathBreak] = field(default_factory=list)
    # What the rest of the block being run needs: the conditions of the one outcome of the `if`
    # just run whose path goes on (`if self.training: return x`: eval mode), set by that `if`
    # and taken by the block (Interpreter.exec_block).
    rest_needs: tuple[Condition, ...] = ()
    # A Python random number went into a tensor operation: dynamo can resume from there
    # (operators.binop, GB0213).
    random_in_graph: bool = False
    # A break made dynamo run this frame eagerly from here on (an RNN call, a break in its
    # loop): what follows in the frame itself breaks no more (two GRU calls in a row break
    # once, measured), though each function it calls is compiled as a frame of its own.
    eagerly: Eagerness = None
    # The break that made it run eagerly, while the later breaks of the frame wait on it alone
    # (Waiting): None when paths made eager by different breaks joined, or after a waiting
    # break that would itself make the frame run eagerly (`waits_stopped`: what follows it
    # waits on two breaks, which the to-do list does not claim).
    eager_after: Node | None = None
    waits_stopped: bool = False
    # Comprehensions met before any break gave the frame up, whose iterator dynamo cannot step
    # in a frame of their own (expressions.py): they break if the frame ends up run eagerly.
    comprehensions_alone: list[tuple[nodes.NodeNG, Frame]] = field(default_factory=list)

    def on_some_calls(self) -> bool:
        """Does the code interpreted now run only on some calls of the frame?"""
        return bool(self.conditional or self.short_circuit or self.after_early_return)

    def take_rest_needs(self) -> tuple[Condition, ...]:
        needs, self.rest_needs = self.rest_needs, ()
        return needs

    def before_paths(self) -> PathState:
        """What each path of a branch or loop body about to run starts from."""
        return self.path_break, self.eagerly, self.eager_after

    def restore(self, before: PathState) -> None:
        self.path_break, self.eagerly, self.eager_after = before

    def join_paths(self, before: PathState,
                   paths: tuple[tuple[bool, bool, PathBreak, Eagerness, Node | None], ...]) -> None:
        """After an `if` whose paths (goes on after it, falls through, and what each left) met:
        the break every call meets is the first of those of the paths that go on (a path that
        returns kept its own in `return_breaks`; one that raises is no call that runs), if each
        met one; the frame runs eagerly on if every path that falls through does."""
        going_on = [path_break for goes_on, _, path_break, _, _ in paths if goes_on]
        if going_on:
            self.path_break = going_on[0] if all(path_break is not None for path_break in going_on) else None
        else:
            self.path_break = before[0]
        through = [(eagerly, after) for _, falls_through, _, eagerly, after in paths if falls_through]
        if through:
            self.eagerly = through[0][0] if all(eagerly for eagerly, _ in through) else None
            causes = {id(after) for _, after in through}
            self.eager_after = through[0][1] if self.eagerly and len(causes) == 1 else None
        else:
            self.eagerly, self.eager_after = before[1], before[2]


def every_path_break(frame: Frame) -> PathBreak:
    """The break every call of the finished `frame` meets, if each path that returns met one."""
    breaks = frame.resume.return_breaks
    if not breaks or any(path_break is None for path_break in breaks):
        return None
    return REPORTED if any(path_break is REPORTED for path_break in breaks) else breaks[0]


@dataclass(eq=False)
class CheckpointCall:
    """A torch.utils.checkpoint call being inlined: does its function set a module attribute?"""

    sets_attribute: bool = False


class Breaks:
    """The breaks of one interpreter's graph: raised where detected (`Interpreter.graph_break`),
    decided against the settings first, then held or reported."""

    def __init__(self, tx: Interpreter):
        self.tx = tx
        self.segment_start = 0  # position of the first node after the latest break
        self.reported = 0  # how many so far: did a call break (ClassRef.call)?
        # The torch.utils.checkpoint calls whose function is being inlined, innermost last.
        self.checkpoint_calls: list[CheckpointCall] = []
        # The tests the path interpreted now passed, of the kinds that differ between the ways
        # a model is run (`self.training`, an optional input given): a break here needs them all.
        self.path_conditions: list[Condition] = []

    @contextlib.contextmanager
    def taking(self, conditions: tuple[Condition, ...]) -> Iterator[None]:
        """Interpret a path that passes the tests `conditions` (an `if` block, an operand)."""
        self.path_conditions.extend(conditions)
        try:
            yield
        finally:
            del self.path_conditions[len(self.path_conditions) - len(conditions):]

    def open_conditions(self) -> tuple[Condition, ...]:
        """The conditions of the path the options leave open: under the default configuration,
        a constructor default the path kept to says nothing."""
        return tuple(c for c in dict.fromkeys(self.path_conditions) if self.tx.options.settles(c) is None)

    def graph_break(self, rule: Rule, node: Node, expr: nodes.NodeNG, frame: Frame,
                    gb_ids: tuple[str, ...] = (), qname: str = "", eagerly: Eagerness = None,
                    versions: str = "", advice: Advice | None = None) -> None:
        """Dynamo breaks the graph at `node` (rule `rule`, `qname`: the function called), when
        this code runs; `eagerly` says how the construct makes dynamo run `frame` on, unless an
        outer frame is given up on first (a loop around the call); `versions` names the torch
        releases that break so, when not every modeled one does (torch_versions.ByVersion.span);
        `advice` the workaround for this form of the construct, where the values pick it (else
        advice.advice_for reads it from the source)."""
        if (rule.captured_by or rule.ignored_by) and not self.settings_at(frame).breaks(rule, qname):
            if rule.captured_by:  # captured or dropped: no break, nothing changes
                self.tx.graph.captured.append(CapturedConstruct(rule.code, expr.root().file or "", expr.lineno,
                                                                expr.col_offset))
            return
        outer = _skipped_frame(frame)
        gives_up = frame if isinstance(eagerly, WhollyEagerly) or isinstance(eagerly, RestEagerly) and outer is None \
            else outer
        if frame.resume.eagerly:
            # The rest of this frame runs eagerly (the functions it calls are compiled).
            self._wait(rule, node, expr, frame, gb_ids, eagerly, outer, versions, advice)
            return
        found = replace(self._found(rule, expr, frame, gb_ids, eagerly, outer, gives_up), versions=versions,
                        conditions=self.open_conditions(), advice=advice or advice_for(rule, expr))
        if gives_up is not None:
            _runs_on_eagerly(gives_up, frame, found.eagerly, node)
        held = _conditional_at_report_site(frame, self.tx.resolver.main)
        if not frame.resume.short_circuit and frame.resume.path_break is None:
            frame.resume.path_break = HeldBreak(node, frame, found) if held else REPORTED
        if not held:
            self._report(node, frame, found)

    def _wait(self, rule: Rule, node: Node, expr: nodes.NodeNG, frame: Frame, gb_ids: tuple[str, ...],
              eagerly: Eagerness, outer: Frame | None, versions: str, advice: Advice | None) -> None:
        """A break in `frame`, which runs eagerly after one earlier break: dynamo reports it once
        that break is gone if nothing else decides whether it is reached: no break between waits
        too, and no test of unknown outcome (an `if`, a loop that may not run, a short circuit)
        leads to it, in the linted file's frame or below (fixing the earlier break may be
        rewriting that test: `if n.item() > 0:` over `x[mask]`). How it makes the frame run on
        is as the stack stands now, as if the earlier break were not there."""
        state = frame.resume
        if state.eager_after is None or state.waits_stopped or \
                _on_some_calls_below_report_site(frame, self.tx.resolver.main):
            return
        if node.origin.span == state.eager_after.origin.span:
            return  # the earlier break itself, met again in a loop unrolled
        found = replace(self._found(rule, expr, frame, gb_ids, eagerly, outer, None), versions=versions,
                        conditions=self.open_conditions(), advice=advice or advice_for(rule, expr))
        node.meta["waiting"] = Waiting(found, state.eager_after)
        if found.eagerly is not None or found.skip_depths or found.stop_depth is not None:
            state.waits_stopped = True

    def settings_at(self, frame: Frame) -> Options:
        """The dynamo settings `frame` runs under: the root's, and those a
        `@torch._dynamo.config.patch(...)` on a function of its stack writes (innermost last)."""
        settings = self.tx.options
        for current in frame.stack():
            if isinstance(current.function, nodes.FunctionDef):
                settings = settings.with_written(config_patch(self.tx.resolver, current.function) or {})
        return settings

    def stop_tracing(self, rule: Rule, node: Node, expr: nodes.NodeNG, frame: Frame, why: str,
                     gb_ids: tuple[str, ...] = ()) -> bool:
        """Where dynamo steps over what it cannot trace (`step_unsupported()`, a tensor slice
        bound), it compiles what the frame traced before and runs the rest of the frame eagerly,
        if it traced at least two ops of its own; otherwise (an "empty checkpoint") the caller
        runs the whole frame eagerly. Measured with 2.13: `x[:, start:]` after `start = m.argmax(-1).min()`
        compiles 1 graph, after `lengths.max()` alone none (val_slice_bounds.py)."""
        # The ops of the frame's graph: its own and its callees', not its callers' (a break in a
        # callee compiles the callee as a frame of its own).
        calls = frame.call_stack().frames
        if sum(1 for n in self.tx.graph.nodes[self.segment_start:] if n.op in TRACED_OPS and n is not node
               and n.origin.calls.frames[:len(calls)] == calls) < 2:
            return False
        self.tx.graph_break(rule, node, expr, frame, gb_ids=gb_ids, eagerly=RestEagerly(frame.name, why))
        return True

    def call_breaks(self, frame: Frame, path_break: HeldBreak | str) -> None:
        """A call made in `frame` breaks on every path through it: a break held back in it is
        certain now if the call itself is."""
        if frame.resume.short_circuit:
            return
        if isinstance(path_break, HeldBreak) and not _conditional_at_report_site(frame, self.tx.resolver.main):
            self._report(path_break.node, path_break.frame, path_break.found)
            path_break = REPORTED
        if frame.resume.path_break is None:
            frame.resume.path_break = path_break

    def checkpointed(self, function: Value, args: list[Value], kwargs: dict[str, Value], expr: nodes.NodeNG,
                     frame: Frame) -> Value:
        """`checkpoint(function, *args)`: dynamo traces `function` as the body of a higher-order
        op, which must be free of side effects (see checkpointed_mutation, Seq.call_method)."""
        call = CheckpointCall()
        self.checkpoint_calls.append(call)
        start, python_start = len(self.tx.graph.nodes), len(self.tx.graph.python_calls)
        try:
            result = function.call(self.tx, args, kwargs, expr, frame)
        finally:
            self.checkpoint_calls.pop()
        if call.sets_attribute:
            # A module attribute set inside: dynamo cannot keep the mutation in the op and
            # breaks at the checkpoint call (GB4413, measured: cfg_checkpoint_side_effects.py).
            node = self.tx.graph.python_call("torch.utils.checkpoint.checkpoint", meta=self.tx.meta(expr, frame))
            self.tx.graph_break(rules.SIDE_EFFECT_IN_CHECKPOINT, node, expr, frame, gb_ids=("GB4413",))
        # With a break in or at it, the checkpoint runs eagerly, dynamo disabled inside
        # (torch.utils.checkpoint is _disable_dynamo): segments.py puts its body in no graph.
        for node in [*self.tx.graph.nodes[start:], *self.tx.graph.python_calls[python_start:]]:
            node.meta["checkpoint"] = id(call)
        return result

    def checkpointed_mutation(self) -> None:
        """A module attribute set inside the checkpointed function being inlined (see checkpointed)."""
        self.checkpoint_calls[-1].sets_attribute = True

    def _found(self, rule: Rule, expr: nodes.NodeNG, frame: Frame, gb_ids: tuple[str, ...],
               eagerly: Eagerness, outer: Frame | None, gives_up: Frame | None) -> Break:
        """The break as the stack stands now (which frames are in a loop, `with` or `try`), for
        reporting now or, held back, when its call returns. An outer frame given up on (`outer`)
        makes the whole of it run eagerly, unless the construct gives up on its own frame; only
        the rest of it when every call already resumed it after an earlier break."""
        depths = _unresumable_depths(frame)
        runs = eagerly
        if isinstance(eagerly, WhollyEagerly):
            depths = (frame.depth, *depths)
        elif outer is not None:
            runs = WhollyEagerly(outer.name, unresumable(outer) or "")
        if isinstance(runs, WhollyEagerly) and gives_up is not None:
            runs = _given_up(gives_up, runs)
        stop_depth = frame.depth if isinstance(eagerly, RestEagerly) else None
        return Break(rule, _source(expr), gb_ids or rule.default_gb_ids, runs, tuple(sorted(set(depths))), stop_depth)

    def _report(self, node: Node, frame: Frame, found: Break) -> None:
        node.meta["break"] = found
        self.reported += 1
        self.segment_start = len(self.tx.graph.nodes)  # what is computed before a break is an input after it
        if found.rule is not rules.BREAK_IN_LOCAL_OBJECT:
            self._break_unresumable(frame)

    def _break_unresumable(self, frame: Frame) -> None:
        """A break inside a method of an object this graph made: dynamo cannot rebuild the
        object to resume the root function, and gives up on all of it (GB0092, measured; a
        break in any other helper, or at the root, resumes)."""
        stack = frame.stack()
        if not any(id(_receiver(current)) in self.tx.heap.local_objects for current in stack[1:]):
            return
        if _is_construction(stack[1]):
            return  # the object is not on the root's stack yet: the construction call resumes
        call = stack[1].call_site
        if call is None:
            return
        node = self.tx.graph.python_call("resume", meta=self.tx.meta(call, stack[0]))
        self.tx.graph_break(rules.BREAK_IN_LOCAL_OBJECT, node, call, stack[0],
                            eagerly=WhollyEagerly(stack[0].name, "that call"))


def unresumable(frame: Frame) -> str | None:
    """Why dynamo cannot resume `frame` after a break in it or in a call it makes."""
    state = frame.resume
    if state.unrebuildable:
        return state.unrebuildable
    if frame.is_comprehension:
        return "a comprehension"
    if state.loop_depth:
        return "a loop"
    if state.with_depth:
        return "a `with` block"
    if state.try_depth:
        return "a `try` block"
    if state.is_property:
        return "a property"
    return None


def _given_up(frame: Frame, whole: WhollyEagerly) -> Eagerness:
    """How eagerly `frame` runs when dynamo gives up on it here (`whole`, unless): as an earlier
    break already made it run, or, when dynamo resumed it after an earlier break on every path to
    here (at its own level, or after a call that breaks on every path), only the rest: the break
    skips the resume function, and the graph compiled before stays (measured:
    val_resumed_then_given_up.py keeps 1 graph; sam3's `_associate_det_trk` 23 ops)."""
    if frame.resume.eagerly is not None:
        return frame.resume.eagerly
    if frame.resume.path_break is not None:
        return RestEagerly(whole.function, whole.why, given_up=True)
    return whole


def _skipped_frame(frame: Frame) -> Frame | None:
    """The outermost frame of the stack dynamo would give up on: a break sits in its loop body,
    `with` or `try` block or property (directly or through the calls it inlined)."""
    return next((current for current in frame.stack() if unresumable(current)), None)


def _unresumable_depths(frame: Frame) -> tuple[int, ...]:
    """The depths (0: the root) of the frames on the stack that cannot resume."""
    return tuple(depth for depth, current in enumerate(frame.stack()) if unresumable(current))


def _runs_on_eagerly(skipped: Frame, frame: Frame, eagerly: Eagerness, cause: Node) -> None:
    """A break in `frame` made dynamo give up on `skipped` (`frame` or one of its callers): the
    rest of `skipped` on this path runs eagerly, so the breaks still ahead in its own code are
    never seen (qwen2_vl's get_rope_index, measured: after the first break in its loop, the
    next two ran but were not traced). Not when the break is only on some calls of a function
    `skipped` called, nor inside a short circuit; `if`s and loops in `skipped` restore it.
    `cause` is the break's node, which the breaks still ahead wait on (Waiting)."""
    stack = frame.stack()
    inner = stack[stack.index(skipped) + 1:]
    if skipped.resume.short_circuit or any(f.resume.on_some_calls() for f in inner):
        return
    skipped.resume.eagerly = eagerly
    skipped.resume.eager_after = cause


def _conditional_at_report_site(frame: Frame, main: SourceModule) -> bool:
    """Would the line we report at run without this construct on some calls?

    A diagnostic says "when this line runs, dynamo breaks here". The line is the construct's
    own in the linted file, or the call site in it that leads to another file. It does not
    hold when the construct sits under a short-circuit or ternary of that line whose outcome
    is not known, or under any unknown branch inside the other files' functions (or after a
    `return` under one).
    """
    stack = frame.stack()
    report = max((i for i, f in enumerate(stack) if f.module is main), default=0)
    if stack[report].resume.short_circuit:
        return True
    return any(f.resume.on_some_calls() for f in stack[report + 1:])


def _on_some_calls_below_report_site(frame: Frame, main: SourceModule) -> bool:
    """Does the code interpreted now run only on some calls of the frame we report in (the
    innermost of the linted file), or of a frame it calls?"""
    stack = frame.stack()
    report = max((i for i, f in enumerate(stack) if f.module is main), default=0)
    return any(f.resume.on_some_calls() for f in stack[report:])


def _is_construction(frame: Frame) -> bool:
    """A frame of `__init__` run by a class call (measured: a break in the `__init__` of an object
    forward builds resumes at the call, no GB0092; registry_metaclass.py)."""
    return isinstance(frame.function, nodes.FunctionDef) and frame.function.name == "__init__"


def _receiver(frame: Frame) -> Value | None:
    """The object a method's frame runs on (its first parameter), if it is a method."""
    function = frame.function
    if isinstance(function, nodes.FunctionDef) and function.args.args:
        return frame.env.get(function.args.args[0].name)
    return None


def _source(expr: nodes.NodeNG) -> str:
    """The construct as written, on one line and shortened."""
    if isinstance(expr, nodes.ClassDef):
        return f"class {expr.name}"  # its header, not its body
    try:
        text = expr.as_string()
    except Exception:  # noqa: BLE001 - as_string on odd nodes
        return type(expr).__name__
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."
