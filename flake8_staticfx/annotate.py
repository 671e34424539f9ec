"""Stage 3: turn the breaks the interpreter raised into graph-break regions.

Each break names its rule and happens under the dynamo settings (the interpreter raises none
that a setting captures or drops); this stage decides where the user must change the code, and
what it costs.
"""
from __future__ import annotations

from dataclasses import replace

from . import messages
from .config import Options
from .interpret.resume import Break, RestEagerly, Waiting
from .ir import Graph, GraphBreakRegion, Node, SourceSpan, report_site


def annotate(graph: Graph, options: Options) -> list[GraphBreakRegion]:
    """Add a region to `graph` for each break dynamo makes, and to its to-do list one for each
    break waiting on an earlier one (see _waiting); return the breaks that happen."""
    for node in [*graph.nodes, *graph.python_calls]:
        brk: Break | None = node.meta.get("break")
        if brk is None:
            continue
        node.meta["region"] = _region(graph, node, brk, options.fullgraph)  # segments.py: the breaks that happen
        graph.regions.append(node.meta["region"])
    graph.regions.sort(key=lambda region: (region.line, region.col))
    graph.waiting = _waiting(graph, options)
    return graph.regions


def _waiting(graph: Graph, options: Options) -> list[GraphBreakRegion]:
    """The to-do list: a break its frame, running eagerly after an earlier break, never reaches.
    Not under fullgraph=True (the compile fails at the first break), nor on a line and code
    already reported (a loop unrolled meets a reported break again), nor waiting on its own line."""
    if options.fullgraph:
        return []
    reported = graph.break_sites()
    waiting: dict[tuple[int, str], GraphBreakRegion] = {}
    for node in [*graph.nodes, *graph.python_calls]:
        todo: Waiting | None = node.meta.get("waiting")
        if todo is None:
            continue
        after = todo.after.origin
        region = replace(_region(graph, node, todo.found, fullgraph=False),
                         waits_on=report_site(graph.file, after.span, after.stack).line, nodes=[])
        if (region.code, region.line) not in reported and region.line != region.waits_on:
            waiting.setdefault((region.line, region.code), region)
    return sorted(waiting.values(), key=lambda region: (region.line, region.col))


def _region(graph: Graph, node: Node, brk: Break, fullgraph: bool) -> GraphBreakRegion:
    rule = brk.rule
    span: SourceSpan = node.origin.span
    report = report_site(graph.file, span, node.origin.stack)
    eagerly = brk.eagerly
    skipped, context = (eagerly.function, eagerly.why) if eagerly is not None else (None, None)
    rest = isinstance(eagerly, RestEagerly)
    if fullgraph:
        impact = "compiled with fullgraph=True: torch.compile raises here instead of splitting the graph"
    elif rest and eagerly.given_up:
        impact = (f"inside {context}: dynamo gives up on the rest of `{skipped}`, after the graph an earlier "
                  "break compiled, and the rest runs eagerly")
    elif rest:
        impact = f"after {context}: dynamo compiles what came before, and the rest of `{skipped}` runs eagerly"
    elif skipped:
        impact = f"inside {context}: dynamo gives up and the whole function `{skipped}` runs eagerly"
    else:
        impact = "the graph splits here: code before and after compiles as separate graphs"
    site = None if report is span else messages.Site(span.function, messages.display_path(span.file), span.line)
    reason = messages.describe(rule, brk.what, site)
    covered = [*([] if node.meta.get("python") else [node]), *node.meta.get("covers", ())]
    advice = brk.advice or rule  # the workaround for this form of the construct, else the rule's
    return GraphBreakRegion(
        code=rule.code, reason=reason, gb_ids=brk.gb_ids, workaround=advice.workaround, fix=advice.fix,
        fixable=rule.fixable, impact=impact, line=report.line, col=report.col,
        construct_file=span.file, construct_line=span.line, frame_skipped=skipped, skip_context=context,
        skips_rest=rest, fails_compile=fullgraph, nodes=covered,
        what=brk.what, site=site, versions=brk.versions, conditions=brk.conditions,
    )
