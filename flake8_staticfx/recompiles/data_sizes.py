"""Recompiles within one call of a root: a frame dynamo compiles on its own (its caller runs
eagerly), called again from the same place with a tensor whose size depends on the data.

Measured (tests/recompile_cases/tuned/moe_tokens.py, examples/moe_router.py): a mixture of
experts whose layer runs eagerly (nonzero in the loop) calls each expert's forward as a frame;
the experts see different token counts, so the second call fails the size guard and the frame
compiles again with a dynamic size; the later calls reuse that entry. Two compiles, whatever the
number of experts.
"""
from __future__ import annotations

from ..ir import Graph, Node
from ..rules import DYNAMIC_OUTPUT_SHAPE


def data_size_recompiles(graph: Graph, graph_of: dict[Node, int | None]) -> int:
    """How many frames of one call of the root compile a second time for a data-dependent size."""
    evaluations: dict[tuple, dict[int, list[Node]]] = {}
    for node in graph.nodes:
        calls = node.origin.calls
        if not calls.sites or node.op == "placeholder":
            continue
        site = calls.sites[0]
        key = (site.file, site.line, site.col, calls.receivers[0])
        evaluations.setdefault(key, {}).setdefault(calls.frames[0][0], []).append(node)
    sources = {_where(node) for node in graph.nodes if node.meta.get("region") is not None
               and node.meta["region"].code == DYNAMIC_OUTPUT_SHAPE.code}
    memo: dict[Node, bool] = {node: True for node in graph.nodes if _where(node) in sources}
    count = 0
    for runs in evaluations.values():
        runs = list(runs.values())
        if len(runs) < 2:
            continue
        own_frame = any(graph_of.get(node) for node in runs[0]) and all(
            graph_of.get(node) is None for run in runs[1:] for node in run)
        if own_frame and sum(_sized_by_data(run, memo) for run in runs) >= 2:
            count += 1
    return count


def _sized_by_data(run: list[Node], memo: dict[Node, bool]) -> bool:
    """A tensor the evaluation receives from outside comes out of a dynamic-shape operation."""
    inside = set(run)
    return any(_from_dynamic_shape(used, memo) for node in run for used in node.inputs() if used not in inside)


def _from_dynamic_shape(node: Node, memo: dict[Node, bool]) -> bool:
    """Made from a dynamic-shape operation (memo holds those: the construct that broke, and the
    same construct run again by a loop, which breaks no more once the frame is skipped)."""
    if node not in memo:
        memo[node] = False
        memo[node] = any(_from_dynamic_shape(used, memo) for used in node.inputs())
    return memo[node]


def _where(node: Node) -> tuple | None:
    span = node.origin.span
    return (span.file, span.line, span.col) if span is not None else None
