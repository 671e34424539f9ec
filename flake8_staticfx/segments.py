"""Graph segments: which compiled graph each node lands in, and how many graphs dynamo compiles.

dynamo 2.13 compiles one *frame* (a function activation it was handed by CPython) at a time,
inlining the calls it makes. Measured on tests/cases (truth `graphs` = `unique_graphs`):

- A break at a frame's own level that can be resumed ends the graph being built and continues in
  a resume function: the code after it is a new graph (`nan_guard`-style cases: 2 graphs).
- A break inside an inlined call: dynamo restarts the caller and stops at the call instead. The
  caller's graph ends before the call, the callee runs as a frame of its own (compiled by the
  same rules, recursively), and the caller resumes after the call (up to four graphs for one
  break: `call_forms.py`, `imported_trim.py`).
- A frame dynamo skips (a break in its loop body, `with` block or property, an RNN module, Python
  arithmetic on a random number) runs eagerly: its own tensor operations are in no graph, and
  each project function it calls is a frame dynamo compiles on its own; torch.nn layers it calls
  directly are not compiled (`adaptive_depth.py`, `speech_encoder.py`, `random_gain.py`).
- dynamo compiles no empty graph: a segment without a tensor operation is not counted. A
  dynamic-shape subscript (GB0036, `x[mask]`) is compiled as the last operation of the graph
  before it (`mlm_head.py`, `trn_ignore_index_focal.py`); a dynamic-shape call (`nonzero`,
  `ctc_loss`) is in no graph (`072_helper_two_deep_item.py`), nor is unpacking its tuple.
- A list, set or dict comprehension is a frame (Python 3.11 makes a function of it) whose body
  is a loop: after a break in it the caller's graph ends at it, it runs eagerly, and the caller
  resumes after it. A generator is no frame dynamo compiles: its code is the caller's
  (`val_comprehension_breaks.py`).
- Torch code is not a frame dynamo compiles: after a break inside a torch.nn container's call
  (Sequential), its layers run eagerly and its project modules are frames
  (`sequential_debug_block.py`).
- A break in the function given to torch.utils.checkpoint, or at the checkpoint call (a side
  effect in it): the checkpoint runs eagerly with dynamo disabled inside, compiling nothing
  (`cfg_checkpoint_side_effects.py`: 0 graphs).
- A frame compiled once is cached: calling the same function again from the same place (a
  loop unrolled, a skipped frame's loop) compiles nothing new, unless its receiver was built
  from other constructor arguments (its guards fail: `query_selector.py`). Each time a loop
  evaluates the call site is a call of its own (`loop_call_frames.py`).

`assign(graph)` maps each node to its graph number (1..n) or to None (runs eagerly);
`count(graph)` is the number of graphs.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from .ir import Graph, Node

TRACED_OPS = frozenset({"call_function", "call_method", "call_module"})


@dataclass
class Segments:
    graph_of: dict[Node, int | None] = field(default_factory=dict)
    count: int = 0
    _compiled: set = field(default_factory=set)  # frames already compiled (the code cache)
    _grad: dict = field(default_factory=dict)


def sequence(graph: Graph) -> list[Node]:
    """The graph's nodes and its Python-side calls in the order the code runs them."""
    order = {node: i for i, node in enumerate(graph.python_calls)}
    python = [(graph.position(node), 0, order[node], node) for node in graph.python_calls]
    traced = [(i, 1, 0, node) for i, node in enumerate(graph.nodes)]
    return [item[-1] for item in sorted(python + traced, key=lambda item: item[:3])]


def _depth(node: Node) -> int:
    return node.origin.depth


def _breaks(node: Node) -> bool:
    return node.meta.get("region") is not None


def _skips(node: Node, depth: int) -> bool:
    """Does dynamo give up on the frame at `depth` when it meets this break?"""
    return depth in node.meta["break"].skip_depths


# Nodes that read metadata (x.shape, x.size(1), x.dim()): dynamo specialises on them and
# puts no operation in the graph (dbg_print_mlp.py: `print(tuple(x.shape))` compiles nothing).
METADATA_FUNCTIONS = frozenset({"getattr", "len"})
METADATA_METHODS = frozenset({"size", "dim", "numel", "stride", "is_contiguous", "element_size", "ndimension"})


def is_metadata(node: Node) -> bool:
    cached = node.meta.get("_metadata")
    if cached is None:
        node.meta["_metadata"] = False  # a cycle cannot occur; this bounds the recursion's cost
        cached = node.meta["_metadata"] = _reads_metadata(node)
    return cached


def _reads_metadata(node: Node) -> bool:
    if node.op == "call_function" and node.target in METADATA_FUNCTIONS:
        return True
    if node.op == "call_method" and node.target in METADATA_METHODS:
        return True
    if node.op == "call_function" and node.target == "operator.getitem":
        first = node.args[0] if node.args else None
        return isinstance(first, Node) and is_metadata(first)
    if node.op == "call_function" and (node.target.startswith("operator.") or node.meta.get("on_python_numbers")):
        used = list(node.inputs())  # arithmetic on sizes: `h - self.crop`, `math.sqrt(d // h)`
        return bool(used) and all(is_metadata(u) for u in used)
    return False


def _dynamic_shape(node: Node) -> bool:
    """A dynamic-shape operator (GB0036: `x[mask]`, `nonzero`) is the last operation of the
    graph that ends at it (measured: `x[mask]` then a Linear compiles 2 graphs, a Linear then
    `y[mask]` compiles 1)."""
    return node.meta["break"].data_dependent_shape


def node_stops(node: Node, depth: int) -> bool:
    return node.meta["break"].stop_depth == depth


def _returns_tuple(node: Node) -> bool:
    """`torch.where(condition)` and `nonzero(as_tuple=True)` give a tuple of tensors."""
    return ((node.target == "torch.where" and len(node.args) + len(node.kwargs) == 1)
            or node.kwargs.get("as_tuple") is True)


def _unpacks_tuple(node: Node) -> bool:
    """`rows, cols = torch.where(adj > 0)`: indexing a tuple is Python, not a graph op
    (measured: the helper's resume function compiles nothing, 022_where_single_arg.py)."""
    return (node.target == "operator.getitem" and len(node.args) == 2 and isinstance(node.args[0], Node)
            and isinstance(node.args[1], int) and _returns_tuple(node.args[0]))


def is_op(node: Node) -> bool:
    """Does the node put an operation into a compiled graph (not a break, a Python-side call or
    a metadata read)? A dynamic-shape subscript (`x[mask]`) is compiled as the last operation
    of the graph before it; a dynamic-shape call (`nonzero`, `ctc_loss` with tensor lengths) is
    in no graph (measured: `torch.nonzero(m)` alone compiles nothing, `lin(x)` then `x[m]` one)."""
    return (node.op in TRACED_OPS and not node.meta.get("python")
            and (not _breaks(node) or (_dynamic_shape(node) and node.target == "operator.getitem"))
            and not is_metadata(node) and not _unpacks_tuple(node))


class _Call(list):
    """The nodes of one call the frame makes, at `site`, in its `evaluation` (a loop evaluates
    one site again and again). A torch.nn container's call (Sequential) also holds the torch
    layers it runs, which are nodes of the calling frame."""

    site = None
    evaluation = None


def _where(span) -> tuple:
    return (span.file, span.line, span.col, span.end_line, span.end_col)


def _call_of(node: Node, depth: int) -> tuple[int, int]:
    """(evaluation of the call site, frame) of the call the frame at `depth` made to run `node`."""
    return node.origin.calls.frames[depth]


def _items(nodes: list[Node], depth: int) -> list:
    """The frame's own nodes, and one `_Call` per call it makes (consecutive nodes under one
    evaluation of a call site). A torch layer at the very span of a neighbouring call belongs
    to that call: `self.seq(x)` runs `seq.0` (a layer) and `seq.1` (a project module) from one
    call."""
    items: list = []
    for node in nodes:
        span = node.origin.span
        if _depth(node) <= depth:
            last = items[-1] if items else None
            if isinstance(last, _Call) and span is not None and _where(span) == _where(last.site):
                last.append(node)
            else:
                items.append(node)
            continue
        here = node.origin.stack[depth]
        evaluation = _call_of(node, depth)[0]
        last = items[-1] if items else None
        if isinstance(last, _Call) and here == last.site and evaluation == last.evaluation:
            last.append(node)
            continue
        call = _Call([node])
        call.site, call.evaluation = here, evaluation
        # Layers the container ran before this project module, at the call's span.
        while (items and not isinstance(items[-1], _Call) and items[-1].op == "call_module"
               and items[-1].origin.span is not None
               and _where(items[-1].origin.span) == _where(here)):
            call.insert(0, items.pop())
        items.append(call)
    return items


def _needs_grad(node: Node, memo: dict) -> bool:
    """Does the tensor require grad? Inputs do not; parameters (layers, get_attr) do."""
    if node not in memo:
        memo[node] = False
        if node.op in ("get_attr", "call_module"):
            memo[node] = True
        elif node.op != "placeholder":
            memo[node] = any(_needs_grad(used, memo) for used in node.inputs())
    return memo[node]


def _needs_grad_inputs(nodes: list[Node], result: Segments) -> bool:
    """Does a tensor the call receives from outside it require grad?"""
    inside = set(nodes)
    return any(_needs_grad(used, result._grad) for node in nodes for used in node.inputs()
               if used not in inside)


def _has_break(item: Node | list[Node]) -> bool:
    return any(_breaks(n) for n in item) if isinstance(item, list) else _breaks(item)


def _first_break(item: Node | list[Node]) -> Node:
    return next(n for n in item if _breaks(n)) if isinstance(item, list) else item


def _flatten(items) -> list[Node]:
    out = []
    for item in items:
        out.extend(item if isinstance(item, list) else [item])
    return out


def _close(result: Segments, nodes: list[Node]) -> None:
    """One compiled graph of `nodes`, unless none of them is a tensor operation."""
    ops = [n for n in nodes if is_op(n)]
    if ops:
        result.count += 1
    for node in nodes:
        result.graph_of[node] = result.count if ops and is_op(node) else None


def _run_frame(result: Segments, nodes: list[Node], depth: int, key) -> None:
    """dynamo compiles one call of a frame at `depth` that runs `nodes` (callees inlined)."""
    items = _items(nodes, depth)
    if key is not None:
        signature = (key, _needs_grad_inputs(nodes, result))
        if key in result._compiled:
            for node in nodes:
                result.graph_of.setdefault(node, None)
            if signature not in result._compiled:
                # A guard on the inputs fails (their requires_grad changed): the frame's first
                # graph is compiled again; its resume functions see the same inputs as before.
                result._compiled.add(signature)
                head = []
                for item in items:
                    if _has_break(item):
                        break
                    head.extend(item if isinstance(item, list) else [item])
                if any(is_op(n) for n in head):
                    result.count += 1
            return
        result._compiled.update((key, signature))
    pending: list = []  # items since the last break: the graph being built
    for index, item in enumerate(items):
        if not _has_break(item):
            pending.append(item)
            continue
        checkpoint = None if isinstance(item, list) else item.meta.get("checkpoint")
        if checkpoint is not None:  # the checkpoint's body before its break runs eagerly too
            for earlier in [p for p in pending if isinstance(p, list) and p[0].meta.get("checkpoint") == checkpoint]:
                pending.remove(earlier)
                for node in earlier:
                    result.graph_of[node] = None
        if _skips(_first_break(item), depth):
            # A break that gives up on this frame (here: a resume function) runs it eagerly.
            _run_skipped(result, [*pending, *items[index:]], depth)
            return
        if not isinstance(item, list) and _dynamic_shape(item):
            pending.append(item)
        _close(result, _flatten(pending))
        pending = []
        if not isinstance(item, list) and node_stops(item, depth):
            # dynamo compiles what it traced and runs the rest of the frame eagerly.
            result.graph_of[item] = None
            _run_skipped(result, items[index + 1:], depth)
            return
        if isinstance(item, list):
            # A break inside the call: the caller stops at the call, the callee is a frame.
            _run_call(result, item, depth)
        else:
            result.graph_of[item] = None
    _close(result, _flatten(pending))


def _run_skipped(result: Segments, items, depth: int) -> None:
    """The frame runs eagerly; each project function it calls is compiled as its own frame."""
    for item in items:
        if isinstance(item, list):
            _run_call(result, item, depth)
        else:
            result.graph_of[item] = None


def _run_call(result: Segments, call: list, depth: int) -> None:
    """A call the frame at `depth` makes, run as a frame of its own. A container's forward is
    torch code dynamo does not compile on its own: its torch layers run eagerly, each project
    module it calls is a frame (measured: Sequential(Linear, Block-with-print, Linear) alone
    compiles Block's two graphs)."""
    if call[0].meta.get("checkpoint") is not None:
        for node in call:
            result.graph_of[node] = None
        return
    runs = [(callee, list(run)) for callee, run in itertools.groupby(call, key=lambda node: _callee(node, depth))]
    if len(runs) == 1 and runs[0][0] is not None:
        _run_frame(result, call, depth + 1, _callee_key(call, depth))
        return
    for callee, run in runs:
        if callee is None:  # a torch layer the container runs eagerly
            for node in run:
                result.graph_of[node] = None
        else:
            _run_frame(result, run, depth + 1, _callee_key(run, depth) + (_where(run[0].origin.span),))


def _callee(node: Node, depth: int) -> int | None:
    """The frame (its serial) the call at `depth` made to run `node`; None for a node of the
    calling frame itself."""
    return _call_of(node, depth)[1] if _depth(node) > depth else None


def _callee_key(nodes: list[Node], depth: int):
    """A frame's code cache entry: the call site, and what its receiver was built from."""
    calls = next(n for n in nodes if _depth(n) > depth).origin.calls
    site = calls.sites[depth]
    return (depth, site.file, site.line, site.col, calls.receivers[depth])


def assign(graph: Graph) -> Segments:
    result = Segments()
    _run_frame(result, sequence(graph), 0, None)
    return result


def count(graph: Graph) -> int:
    """Graphs dynamo 2.13 compiles for one call of the root (its `unique_graphs`)."""
    return assign(graph).count
