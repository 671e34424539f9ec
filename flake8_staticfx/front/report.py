"""Stage 5: diagnostics for flake8, and the graph as text, DOT and JSON."""
from __future__ import annotations

import ast
import json
from typing import TYPE_CHECKING, Iterator

from .. import messages, segments
from ..analysis import FileAnalysis
from ..fixable import announced_fixes
from ..ir import Graph, GraphBreakRegion, Node, format_arg
from ..rules import RULES
from .diagnostic import Diagnostic

if TYPE_CHECKING:
    from ..recompiles import Recompile


def diagnostic_message(region: GraphBreakRegion, fixable: bool = False) -> str:
    return messages.render(RULES[region.code], region.what, region.gb_ids, frame_skipped=region.frame_skipped,
                           skip_context=region.skip_context, skips_rest=region.skips_rest, site=region.site,
                           fails_compile=region.fails_compile, fixable=fixable, versions=region.versions,
                           conditions=region.conditions, waits_on=region.waits_on, fix=region.fix)


def diagnostics(analysis: FileAnalysis, notices: bool = False, tree: ast.Module | None = None) -> list[Diagnostic]:
    """Once per place and code, in source order; SFX900 notices only when asked for. With the
    file's `ast` tree, a message says when the fix command rewrites that occurrence (fixable.py:
    the forms decided without libcst)."""
    seen: set[tuple[int, str]] = set()
    found = []
    own = [region for graph in analysis.graphs for region in graph.regions]
    regions = own + analysis.reached
    # `fix` rewrites what the file's own roots reach; a break only other files' roots reach is
    # not among its regions, so its message promises no fix.
    announced = announced_fixes(tree, analysis.path, own)
    for region in regions:
        key = (region.line, region.code)
        if key not in seen:
            seen.add(key)
            # One break of the place that happens however the model is run says so.
            region = min((r for r in regions if (r.line, r.code) == key), key=lambda r: len(r.conditions))
            fixable = (region.line, region.col, region.code) in announced
            found.append(Diagnostic(region.line, region.col, diagnostic_message(region, fixable), region.code,
                                    tuple(region.gb_ids), messages.condition_label(region.conditions) or None))
    for region in (region for graph in analysis.graphs for region in graph.waiting):
        key = (region.line, region.code)
        if key not in seen:  # a break reported now, or waiting in another root already
            seen.add(key)
            found.append(Diagnostic(region.line, region.col, diagnostic_message(region), region.code,
                                    tuple(region.gb_ids), messages.condition_label(region.conditions) or None,
                                    region.waits_on))
    for found_recompile in sorted(analysis.recompiles, key=lambda r: -r.compiles):  # the costliest driver
        key = (found_recompile.line, found_recompile.rule.code)
        if key not in seen:
            seen.add(key)
            found.append(Diagnostic(found_recompile.line, found_recompile.col, recompile_message(found_recompile),
                                    found_recompile.rule.code))
    for notice in analysis.notices if notices else ():
        found.append(Diagnostic(notice.line, notice.col, messages.notice(RULES["SFX900"], notice.what, notice.reason),
                                "SFX900"))
    return sorted(found)


def flake8_diagnostics(analysis: FileAnalysis, notices: bool = False,
                       tree: ast.Module | None = None) -> Iterator[tuple[int, int, str]]:
    """(line, 0-based column, message): what flake8 is given (see `diagnostics`)."""
    for diagnostic in diagnostics(analysis, notices, tree):
        yield diagnostic.line, diagnostic.col, diagnostic.message


def recompile_message(found: Recompile) -> str:
    from ..recompiles import RECOMPILE_LIMIT  # here: only a file naming `compile` imports the package

    if found.any_caller:
        when = f"{', '.join(found.conditions)}: " if found.conditions else ""
        return messages.recompile(found.rule, found.construct, found.guard, (
            f"{when}every call after the first compiles again, eager after {RECOMPILE_LIMIT} compiles",
            f"{when}eager after {RECOMPILE_LIMIT} compiles", f"{when}eager after {RECOMPILE_LIMIT}"), fix=found.fix)
    eager = f", then eager (limit {RECOMPILE_LIMIT})" if found.eager_after_limit else ""
    # a lower bound comes from calls not all followed (loops not counted): their number is not told
    counted = f"at least {found.compiles} compiles" if found.at_least else f"{found.compiles} compiles in {found.calls} calls"
    return messages.recompile(found.rule, found.construct, found.guard,
                              (f"{counted} at line {found.call_line}{eager}", f"{counted}{eager}"))


# -- text ------------------------------------------------------------------------

def predicted_graphs(graph: Graph) -> int:
    """Graphs dynamo 2.13 compiles for one call of the root (see segments.py)."""
    return segments.count(graph)


def render_text(analysis: FileAnalysis) -> str:
    parts = []
    for graph in analysis.graphs:
        unknown = graph.unknown_values()
        partly = f", {unknown} value(s) not followed (<?>)" if unknown else ""
        at_least = "at least " if graph.count_is_lower_bound() else ""
        parts.append(f"{graph.root}  ({len(graph.nodes)} nodes, {len(graph.break_sites())} graph breaks, "
                     f"{at_least}{predicted_graphs(graph)} graph(s) predicted{partly})")
        parts.append(graph.tabular())
        if any(node.meta.get("repeat") for node in graph.nodes):
            parts.append("  ×? drawn once: repeated by a loop whose trip count is not known statically")
        if any(node.meta.get("opaque") for node in graph.nodes):
            parts.append("  (opaque) one call for a submodule not analysed: what it does is not known statically")
        for region in graph.regions:
            parts.append(f"  break {region.code} line {region.line}: {region.reason} ({'/'.join(region.gb_ids)})")
            if region.conditions:
                parts.append(f"    breaks only: {messages.condition_label(region.conditions)}")
            parts.append(f"    impact: {region.impact}")
            parts.append(f"    workaround: {region.workaround}")
            parts.append(f"    nodes: {', '.join(n.name for n in region.nodes)}")
        for region in graph.waiting:
            parts.append(f"  waiting {region.code} line {region.line}: {region.reason} ({'/'.join(region.gb_ids)}) "
                         f"{messages.WAITING.format(region.waits_on)}")
        parts.append("")
    for notice in analysis.notices:
        parts.append(f"notice: could not analyse {notice.what} (line {notice.line}): {notice.reason}")
    return "\n".join(parts).rstrip() + "\n"


# -- DOT -------------------------------------------------------------------------

def _dot_label(node: Node) -> str:
    text = f"{node.name}\\n{node.op}\\n{node.target}"
    return text.replace('"', '\\"')


def render_dot(analysis: FileAnalysis) -> str:
    lines = ["digraph staticfx {", "  node [shape=box, fontname=monospace];"]
    for index, graph in enumerate(analysis.graphs):
        breaks = {node: region for region in graph.regions for node in region.nodes}
        lines.append(f"  subgraph cluster_{index} {{")
        lines.append(f'    label="{graph.root}";')
        for node in graph.nodes:
            region = breaks.get(node)
            style = ""
            if region is not None:
                color = "red" if region.nodes[0] is node else "orange"
                style = f', style=filled, fillcolor={color}, tooltip="{region.code}: line {region.line}"'
            lines.append(f'    "g{index}_{node.name}" [label="{_dot_label(node)}"{style}];')
        for node in graph.nodes:
            for used in node.inputs():
                lines.append(f'    "g{index}_{used.name}" -> "g{index}_{node.name}";')
        lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


# -- JSON ------------------------------------------------------------------------

def _json_arg(arg):
    if isinstance(arg, Node):
        return {"node": arg.name}
    if isinstance(arg, (tuple, list)):
        return [_json_arg(a) for a in arg]
    if isinstance(arg, dict):
        return {str(k): _json_arg(v) for k, v in arg.items()}
    if arg is None or isinstance(arg, (bool, int, float, str)):
        return arg
    return format_arg(arg)


def graph_json(graph: Graph) -> dict:
    from ..fix import has_rewrite  # per occurrence; the lint path never imports fix

    region_of = {node: region for region in graph.regions for node in region.nodes}
    split = segments.assign(graph)
    return {
        "name": graph.root,
        "file": graph.file,
        "predicted_graphs": split.count,
        "predicted_graphs_at_least": graph.count_is_lower_bound(),
        "unknown_values": graph.unknown_values(),
        "inlined_modules": graph.inlined_modules,
        "nodes": [
            {
                "name": node.name, "op": node.op, "target": node.target,
                "args": _json_arg(node.args), "kwargs": _json_arg(node.kwargs),
                "users": [user.name for user in node.users], "line": node.line,
                "break": region_of[node].code if node in region_of else None,
                "repeat": node.meta.get("repeat"),
                "opaque": node.meta.get("opaque"),
                "segment": split.graph_of.get(node),  # its compiled graph (1..n), None: eager or no op
            }
            for node in graph.nodes
        ],
        "regions": [
            {
                "code": region.code, "reason": region.reason, "gb": list(region.gb_ids),
                "line": region.line, "col": region.col, "workaround": region.workaround,
                "fixable": has_rewrite(region, graph), "severity": region.severity, "impact": region.impact,
                "frame_skipped": region.frame_skipped, "nodes": [n.name for n in region.nodes],
                "condition": messages.condition_label(region.conditions) or None,
            }
            for region in graph.regions
        ],
        # The to-do list: breaks dynamo reaches once the break on line `waits_on` is fixed.
        "waiting": [
            {"code": region.code, "reason": region.reason, "gb": list(region.gb_ids), "line": region.line,
             "col": region.col, "waits_on": region.waits_on}
            for region in graph.waiting
        ],
    }


def render_json(analysis: FileAnalysis) -> str:
    return json.dumps({
        "file": analysis.path,
        "graphs": [graph_json(graph) for graph in analysis.graphs],
        "notices": [vars(notice) for notice in analysis.notices],
    }, indent=2) + "\n"


RENDERERS = {"text": render_text, "dot": render_dot, "json": render_json}
