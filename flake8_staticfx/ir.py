"""A small static FX graph: the nodes torch.fx would record, plus the graph-break regions.

Invariants (checked by `Graph.lint`): node names are unique, every node argument is an
earlier node of the same graph, `users` mirrors the arguments, `op` is one of fx's opcodes.
"""
from __future__ import annotations

import functools
import keyword
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterator, NamedTuple

if TYPE_CHECKING:
    from .messages import Site

OPCODES = frozenset(
    {"placeholder", "get_attr", "call_function", "call_method", "call_module", "output"}
)


# The kinds of test on a path that decide whether a break on it is reached (Condition.kind).
TRAINING = "training"  # `self.training`
GRAD_ENABLED = "grad enabled"  # `torch.is_grad_enabled()`
INPUT_GIVEN = "input given"  # an optional input is not None
FLOAT_DTYPE = "float dtype"  # the inputs' floating dtype (`x.dtype == torch.float16`)
AUTOCAST = "autocast"  # autocast is on for a device (`torch.is_autocast_enabled("cuda")`)
DEVICE = "device"  # the inputs' device type (`x.is_cuda`, `x.device.type == "cpu"`)
CONFIGURED = "configured"  # a constructor argument or config field away from its default (`debug=True`)
NOT_EMPTY = "not empty"  # a tensor has elements (`len(idx) == 0` tests the opposite)


@dataclass(frozen=True)
class Condition:
    """One test the path to a break passes, of a kind that differs between the ways a model is
    run (its mode, the inputs given, their dtype and device, autocast, its configuration): the break happens only
    when it `holds`. `subject` names the input, the dtype, the device or the setting the test is about; a
    setting's `default` is the repr of the value a model built with defaults has."""

    kind: str
    subject: str = ""
    holds: bool = True
    default: str = ""

    def negated(self) -> Condition:
        return Condition(self.kind, self.subject, not self.holds, self.default)


@dataclass(frozen=True)
class SourceSpan:
    """Where a node came from: the file, its position and the chain of inlined calls."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int
    function: str


@dataclass(frozen=True)
class CallStack:
    """The inlined calls that lead to a frame, outermost first: each call's site, the
    configuration of its receiver (dynamo's guards on it decide whether a compiled frame is
    reused, segments.py), and which (evaluation of the site, frame) it is."""

    sites: tuple[SourceSpan, ...] = ()
    receivers: tuple[Any, ...] = ()
    frames: tuple[tuple[int, int], ...] = ()


class Origin(NamedTuple):
    """Where a node comes from: its own span and the inlined calls that lead there (a named
    tuple: one is made for every node, and a tuple is the cheapest record to make)."""

    span: SourceSpan | None = None
    calls: CallStack = CallStack()

    @property
    def stack(self) -> tuple[SourceSpan, ...]:
        """The call sites, outermost first."""
        return self.calls.sites

    @property
    def depth(self) -> int:
        """How many inlined calls deep the node is (0: the root's own code)."""
        return len(self.calls.sites)


NO_ORIGIN = Origin()


def report_site(main_file: str, span: SourceSpan, stack: tuple[SourceSpan, ...]) -> SourceSpan:
    """The innermost place in the linted file: the construct, or the call that reaches it."""
    if span.file == main_file:
        return span
    for site in reversed(stack):
        if site.file == main_file:
            return site
    return span


class Node:
    __slots__ = ("name", "op", "target", "args", "kwargs", "users", "meta")

    def __init__(self, name: str, op: str, target: str, args: tuple, kwargs: dict, meta: dict):
        assert op in OPCODES, op
        self.name = name
        self.op = op
        self.target = target
        self.args = args
        self.kwargs = kwargs
        self.users: dict[Node, None] = {}
        self.meta = meta

    def inputs(self) -> Iterator[Node]:
        """Every node among args and kwargs, nested tuples and lists included."""
        stack = [*self.args, *self.kwargs.values()]
        while stack:
            item = stack.pop()
            if isinstance(item, Node):
                yield item
            elif isinstance(item, (tuple, list)):
                stack.extend(item)
            elif isinstance(item, dict):
                stack.extend(item.values())

    @property
    def origin(self) -> Origin:
        """Where the node comes from (`Interpreter.meta` records it)."""
        return self.meta.get("origin", NO_ORIGIN)

    @property
    def line(self) -> int | None:
        span = self.origin.span
        return span.line if span else None

    def __repr__(self) -> str:
        return self.name


def format_arg(arg: Any) -> str:
    if isinstance(arg, Node):
        return f"%{arg.name}"
    if isinstance(arg, tuple):
        inner = ", ".join(format_arg(a) for a in arg)
        return f"({inner},)" if len(arg) == 1 else f"({inner})"
    if isinstance(arg, list):
        return "[" + ", ".join(format_arg(a) for a in arg) + "]"
    if isinstance(arg, dict):
        return "{" + ", ".join(f"{k!r}: {format_arg(v)}" for k, v in arg.items()) + "}"
    return repr(arg)


@dataclass
class GraphBreakRegion:
    """One place where dynamo splits the graph, and the nodes the split affects."""

    code: str
    reason: str
    gb_ids: tuple[str, ...]
    workaround: str
    fixable: bool
    impact: str
    line: int  # where the user must change the code (in the linted file)
    col: int
    construct_file: str  # where the construct itself is (may be another project file)
    construct_line: int
    frame_skipped: str | None  # the function dynamo would run eagerly, if any
    skip_context: str | None  # why it cannot resume: "a loop", "a `with` block", "a `try` block", "a property"
    skips_rest: bool = False  # only the rest of `frame_skipped`, after the break, runs eagerly
    fails_compile: bool = False  # compiled with fullgraph=True: the break is an error, not a split
    nodes: list[Node] = field(default_factory=list)
    what: str = ""  # the construct as written, for the message
    site: Site | None = None  # where the construct is, when in another file than the linted one
    versions: str = ""  # the torch releases that break so, when not every modeled one does
    # The tests its path passes that decide whether it is reached (all must hold); empty when
    # it breaks however the model is run.
    conditions: tuple[Condition, ...] = ()
    # A to-do item: the line (in the linted file) of the earlier break after which its frame
    # runs eagerly; dynamo reports this break once that one is fixed. None: a break dynamo
    # reports now.
    waits_on: int | None = None
    # The short workaround that ends its message: the rule's, or its advice's for this form of
    # the construct (advice.py).
    fix: str = ""

    @property
    def severity(self) -> str:
        return "error" if self.frame_skipped or self.fails_compile else "warning"


@dataclass(frozen=True)
class CapturedConstruct:
    """A construct that would break but a dynamo setting the run has on captures
    (`.item()` under capture_scalar_outputs): where `fix`, turning that setting on, must show
    the capture safe, including constructs an earlier break hides without the setting."""

    code: str
    file: str
    line: int
    col: int


@functools.lru_cache(maxsize=4096)
def _legal_name(candidate: str) -> tuple[str, str | None]:
    """`candidate` as a legal snake_case name, and its stem if it ends in `_<digits>`
    (`layer_2` -> `layer`). A graph names many nodes alike: worked out once per candidate."""
    base = re.sub(r"[^0-9a-zA-Z_]+", "_", candidate).strip("_") or "node"
    base = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", base).lower() if base[0].isupper() else base
    if base[0].isdigit() or keyword.iskeyword(base):
        base = f"_{base}"
    match = re.fullmatch(r"(.*)_(\d+)", base)
    return base, match.group(1) if match else None


class _Namespace:
    """Unique, legal node names in torch.fx's style: relu, relu_1, layer1_0_conv1."""

    def __init__(self) -> None:
        self._used: dict[str, int] = {}

    def create(self, candidate: str) -> str:
        base, stem = _legal_name(candidate)
        if stem is not None and stem in self._used:
            base = stem
        count = self._used.get(base)
        if count is None:
            self._used[base] = 0
            return base
        while True:
            count += 1
            name = f"{base}_{count}"
            if name not in self._used:
                self._used[base] = count
                self._used[name] = 0
                return name


class Graph:
    def __init__(self, root: str, file: str):
        self.root = root  # e.g. "Net.forward"
        self.file = file
        self.nodes: list[Node] = []
        # Python-side calls dynamo cannot record (print, time.time, a logger): kept beside the
        # graph so that their break regions have a call to point at; never among `nodes`.
        self.python_calls: list[Node] = []
        self.regions: list[GraphBreakRegion] = []
        # The to-do list: breaks dynamo reaches once an earlier one is fixed (region.waits_on),
        # never among `regions`, which are the breaks that happen.
        self.waiting: list[GraphBreakRegion] = []
        self.captured: list[CapturedConstruct] = []  # what a setting captured instead of a break
        # The path of each module whose forward was inlined, once per call: the blocks drawn as
        # their body rather than as a call_module node (a project's RMSNorm, rotary embedding).
        self.inlined_modules: list[str] = []
        self._names = _Namespace()
        self._positions: dict[Node, int] = {}  # node -> its position (python calls: the next node's)

    def owns(self, node: Node) -> bool:
        """Was `node` created in this graph (not in another root's, or in an `__init__`'s)?"""
        return node in self._positions

    def position(self, node: Node) -> int:
        """How many graph nodes were created before `node` (-1 for another graph's)."""
        return self._positions.get(node, -1)

    def create_node(
        self, op: str, target: str, args: tuple = (), kwargs: dict | None = None,
        name: str | None = None, meta: dict | None = None,
    ) -> Node:
        node = Node(self._names.create(name or _default_name(op, target)), op, target,
                    args, kwargs or {}, meta or {})
        for used in node.inputs():
            used.users[node] = None
        self._positions[node] = len(self.nodes)
        self.nodes.append(node)
        return node

    def python_call(self, target: str, args: tuple = (), kwargs: dict | None = None,
                    meta: dict | None = None) -> Node:
        node = Node(self._names.create(_default_name("call_function", target)), "call_function",
                    target, args, kwargs or {}, {**(meta or {}), "python": True})
        self.python_calls.append(node)
        self._positions[node] = len(self.nodes)
        return node

    def placeholder(self, name: str, meta: dict | None = None) -> Node:
        return self.create_node("placeholder", name, name=name, meta=meta)

    def get_attr(self, target: str, meta: dict | None = None) -> Node:
        return self.create_node("get_attr", target, meta=meta)

    def call_function(self, target: str, args: tuple = (), kwargs: dict | None = None,
                      meta: dict | None = None) -> Node:
        return self.create_node("call_function", target, args, kwargs, meta=meta)

    def call_method(self, target: str, args: tuple = (), kwargs: dict | None = None,
                    meta: dict | None = None) -> Node:
        return self.create_node("call_method", target, args, kwargs, meta=meta)

    def call_module(self, target: str, args: tuple = (), kwargs: dict | None = None,
                    meta: dict | None = None) -> Node:
        return self.create_node("call_module", target, args, kwargs, meta=meta)

    def output(self, result: Any, meta: dict | None = None) -> Node:
        return self.create_node("output", "output", (result,), name="output", meta=meta)

    def break_sites(self) -> set[tuple[str, int]]:
        """(code, line) of each break as flake8 reports it: a loop's break once."""
        return {(region.code, region.line) for region in self.regions}

    def unknown_values(self) -> int:
        """Node arguments the analysis could not follow, drawn `<?>` (UNKNOWN_ARG): a root with
        no break but some of these is clean only as far as it was analysed."""
        return sum(_unknown_in(node.args) + _unknown_in(node.kwargs) for node in self.nodes)

    def count_is_lower_bound(self) -> bool:
        """Could the parts not known statically add graphs? An opaque call may break inside; a
        break in a loop of unknown trip count may happen on more iterations."""
        broken = {node for region in self.regions for node in region.nodes}
        return any(node.meta.get("opaque") or (node.meta.get("repeat") and node in broken) for node in self.nodes)

    def lint(self) -> None:
        seen: set[Node] = set()
        names: set[str] = set()
        for node in self.nodes:
            assert node.op in OPCODES, node.op
            assert node.name not in names, f"duplicate name {node.name}"
            names.add(node.name)
            for used in node.inputs():
                assert used in seen, f"{node.name} uses {used.name} before it is defined"
                assert node in used.users, f"{used.name}.users misses {node.name}"
            seen.add(node)
        for region in self.regions:
            for node in region.nodes:
                assert node in seen, f"region {region.code} covers a foreign node {node.name}"

    def tabular(self) -> str:
        """The graph in the layout of torch.fx's `Graph.print_tabular`."""
        rows = [("opcode", "name", "target", "args", "kwargs", "line", "break")]
        rows.append(tuple("-" * len(h) for h in rows[0]))
        breaks = {node: region.code for region in self.regions for node in region.nodes}
        for node in self.nodes:
            repeat = " ×?" if node.meta.get("repeat") else ""  # drawn once, repeated an unknown number of times
            opaque = " (opaque)" if node.meta.get("opaque") else ""  # one call standing for what is not known
            rows.append((
                node.op, node.name + repeat + opaque, str(node.target), format_arg(node.args),
                format_arg(node.kwargs), str(node.line or ""), breaks.get(node, ""),
            ))
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        return "\n".join(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip()
            for row in rows
        )

    def __str__(self) -> str:
        lines = [f"graph({self.root}):"]
        for node in self.nodes:
            args = format_arg(node.args)
            kwargs = f", kwargs = {format_arg(node.kwargs)}" if node.kwargs else ""
            lines.append(f"    %{node.name} : [op={node.op}] [target={node.target}]"
                         f" [args = {args}{kwargs}]")
        return "\n".join(lines)


UNKNOWN_ARG = "<?>"  # how a node prints a value the analysis could not follow


def _unknown_in(arg: Any) -> int:
    if isinstance(arg, (tuple, list)):
        return sum(_unknown_in(a) for a in arg)
    if isinstance(arg, dict):
        return sum(_unknown_in(a) for a in arg.values())
    return int(isinstance(arg, str) and arg == UNKNOWN_ARG)


def _default_name(op: str, target: str) -> str:
    if op == "call_module" or op == "get_attr":
        return target.replace(".", "_")
    return target.rsplit(".", 1)[-1]
