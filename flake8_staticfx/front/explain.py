"""`flake8-staticfx explain FILE`: what `torch._dynamo.explain(model)(*inputs)` would print, from
the source alone.

    flake8-staticfx explain FILE [--root NAME] [--format text|json] [--view instance|lint] [compile options]

Per compile root, in the shape of dynamo's ExplainOutput: the graph count, the break count, each
break with its reason, GB ids and user stack (the chain of calls from the root to the construct,
`file:line in function`), and the operations of each predicted graph. The counts are the ones
`graph` prints (segments.py): like `graph`, it takes the instance view unless
`--view lint` asks for the lint's. Under torch's names, torch's numbers: its "Graph Break Count"
is the graph count less one (torch._dynamo.explain computes it so), which counts only the breaks
that split a graph (a break with nothing compiled before it splits none); the lines where the
graph breaks, as flake8 reports them, are counted under their own name, "Break Lines", and the
to-do list apart from them, "Waiting Lines": breaks dynamo reaches once an earlier one is fixed,
which torch's explain does not see.
"""
from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass

from .. import segments
from ..analysis import FileAnalysis
from ..ir import Graph, GraphBreakRegion, Node
from ..recompiles import RECOMPILE_LIMIT, FrameCompiles
from ..recompiles.data_sizes import data_size_recompiles
from ..messages import WAITING, condition_label, display_path
from ..torch_versions import TorchVersion, facts
from .options import add_root_arguments, analyse_roots


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_root_arguments(parser, formats=("text", "json"))


def run(args: argparse.Namespace) -> int:
    analysis = analyse_roots(args)
    if analysis is None:
        return 2
    explained = [explain_root(graph, analysis.torch, analysis.frame_compiles) for graph in analysis.graphs]
    if args.format == "json":
        print(json.dumps(explained, indent=2))
        return 0
    if not explained:
        print(f"{args.file}: no compile root (no nn.Module forward, no torch.compile'd function)")
    else:
        print(f"Answers for {analysis.torch.describe()}\n")
        print("\n\n".join(render(item) for item in explained))
    reached = _reached_only(analysis)
    if reached:
        print(f"\nBreaks here that only roots of the files importing {os.path.basename(args.file)} reach "
              f"(explain those files for their graphs): "
              + ", ".join(f"line {line} {code}" for line, code in reached))
    return 0


def _reached_only(analysis: FileAnalysis) -> list[tuple[int, str]]:
    """The (line, code) of the breaks the plugin reports in this file that none of its own
    roots meets (reach.py)."""
    own = {(region.line, region.code) for graph in analysis.graphs for region in graph.regions}
    return sorted({(region.line, region.code) for region in analysis.reached} - own)


@dataclass
class RepeatedBreak:
    """One break as the user reads it: the place in the code and the call chain to it, with the
    regions of every time the run meets it (a loop unrolled meets it once per iteration)."""

    region: GraphBreakRegion
    user_stack: list[dict]
    occurrences: list[GraphBreakRegion]


def unique_breaks(graph: Graph) -> list[RepeatedBreak]:
    """The root's breaks, each listed once, in the order of their user stacks."""
    breaks: dict[tuple, RepeatedBreak] = {}
    for node in [*graph.nodes, *graph.python_calls]:
        region = node.meta.get("region")
        if region is None:
            continue
        stack = user_stack(node)
        key = (region.code, region.reason, tuple((f["file"], f["line"]) for f in stack))
        if key in breaks:
            breaks[key].occurrences.append(region)
        else:
            breaks[key] = RepeatedBreak(region, stack, [region])
    return sorted(breaks.values(), key=lambda b: [(f["file"], f["line"]) for f in b.user_stack])


def explain_root(graph: Graph, torch: TorchVersion, frame_compiles: list[FrameCompiles] = ()) -> dict:
    """The root's ExplainOutput fields (graph_count, graph_break_count, break_reasons,
    ops_per_graph), and break_lines, the source lines where its graph breaks; each break's GB
    ids with their titles in the registry of the torch release answered for; compile_count
    (graph_count and the recompiles within one call) and, for each driver of the file that calls
    the root, the root's compiles over that driver's calls (a lower bound where they are not all
    followed)."""
    assignment = segments.assign(graph)
    registry = facts(torch.minor)
    recompiles = data_size_recompiles(graph, assignment.graph_of)
    breaks = [{"code": b.region.code, "line": b.region.line, "reason": b.region.reason,
               "gb_ids": list(b.region.gb_ids), "gb_titles": {gb: registry.title(gb) for gb in b.region.gb_ids},
               "versions": b.region.versions, "condition": condition_label(b.region.conditions) or None,
               "impact": b.region.impact, "user_stack": b.user_stack,
               "times": len(b.occurrences)} for b in unique_breaks(graph)]
    ops: dict[int, list[dict]] = {}
    for node in graph.nodes:
        number = assignment.graph_of.get(node)
        if number is not None and node.op in segments.TRACED_OPS:
            ops.setdefault(number, []).append({"op": node.op, "target": node.target, "line": node.line})
    return {"root": graph.root, "file": display_path(graph.file), "torch": torch.as_json(),
            "unknown_values": graph.unknown_values(),
            "graph_count": assignment.count,
            "compile_count": assignment.count + recompiles,
            "graph_break_count": assignment.count - 1,  # torch's: len(graphs) - 1, even with no graph
            "break_lines": len(graph.break_sites()),
            "waiting_lines": len(graph.waiting),
            "waiting": [{"code": region.code, "line": region.line, "reason": region.reason,
                         "gb_ids": list(region.gb_ids), "waits_on": region.waits_on} for region in graph.waiting],
            "break_reasons": breaks,
            "ops_per_graph": [ops[number] for number in sorted(ops)],
            # a driver not followed to its end gives a lower bound, and no number of calls
            "call_sequences": [{"driver": f.driver, "calls": f.calls if f.known else None, "compiles": f.compiles,
                                "at_least": not f.known, "eager_after_limit": f.eager_after_limit}
                               for f in frame_compiles if f.root == graph.root and (f.known or f.compiles)]}


def user_stack(node: Node) -> list[dict]:
    """The calls from the root down to the construct, outermost first."""
    spans = [*node.origin.stack, node.origin.span]
    return [{"file": display_path(span.file), "line": span.line, "function": span.function} for span in spans]


def render(item: dict) -> str:
    lines = [f"{item['root']} ({item['file']})",
             f"Graph Count: {item['graph_count']}",
             f"Graph Break Count: {item['graph_break_count']}",
             f"Compile Count: {item['compile_count']}" + (
                 f" (recompiles for data-dependent sizes: {item['compile_count'] - item['graph_count']})"
                 if item["compile_count"] != item["graph_count"] else ""),
             *(f"Compiles over `{seq['driver']}`: " + (
                 f"at least {seq['compiles']} (its calls not all followed)" if seq["at_least"]
                 else f"{seq['compiles']} in {seq['calls']} calls")
               + (f", then eager (recompile limit {RECOMPILE_LIMIT})" if seq["eager_after_limit"] else "")
               for seq in item["call_sequences"]),
             f"Op Count: {sum(len(ops) for ops in item['ops_per_graph'])}",
             f"Break Lines: {item['break_lines']} (source lines where the graph breaks, as flake8 reports them)",
             *([f"Waiting Lines: {item['waiting_lines']} (breaks dynamo reaches once an earlier one is fixed)"]
               if item["waiting_lines"] else []),
             *([f"Not Followed: {item['unknown_values']} value(s), drawn <?>: the counts hold as far as "
                "the analysis went"] if item["unknown_values"] else []),
             "Break Reasons:"]
    for number, brk in enumerate(item["break_reasons"], 1):
        times = f" (×{brk['times']}, once per iteration)" if brk["times"] > 1 else ""
        lines.append(f"  Break Reason {number}:{times}")
        lines.append(f"    Reason: {brk['code']} {brk['reason']} ({'/'.join(brk['gb_ids'])})")
        lines.extend(f"    {gb}: {title}" for gb, title in brk["gb_titles"].items() if title)
        if brk["versions"]:
            lines.append(f"    Breaks so in: {brk['versions']}")
        if brk["condition"]:
            lines.append(f"    Breaks only: {brk['condition']}")
        if brk["impact"]:
            lines.append(f"    Impact: {brk['impact']}")
        lines.append("    User Stack:")
        lines.extend(f"      {f['file']}:{f['line']} in {f['function']}" for f in brk["user_stack"])
    if item["waiting"]:
        lines.append("Waiting:")
        lines.extend(f"  {item['file']}:{brk['line']}: {brk['code']} {brk['reason']} "
                     f"({'/'.join(brk['gb_ids'])}) {WAITING.format(brk['waits_on'])}" for brk in item["waiting"])
    lines.append("Ops per Graph:")
    for number, ops in enumerate(item["ops_per_graph"], 1):
        lines.append(f"  Ops {number}:")
        lines.extend(f"    {op['op']} {op['target']}  (line {op['line']})" for op in ops)
    return "\n".join(lines)
