"""Stage 4: turn the constructs the builder tagged into graph-break regions.

A tag says what the code does (`item`, `branch`, ...); this stage decides, from the rule
table and the dynamo settings, whether dynamo breaks there, where the user must change
the code, and what it costs.
"""
from __future__ import annotations

from . import messages
from .config import Options
from .ir import Graph, GraphBreakRegion, Node, SourceSpan
from .rules import RULES

RULE_OF_CONSTRUCT = {
    "branch": "SFX101",
    "item": "SFX102",
    "tolist": "SFX103",
    "data_dependent": "SFX104",
    "numpy_random": "SFX104",
    "random_arithmetic": "SFX105",
    "generator": "SFX309",
    "context": "SFX308",
    "builtin": "SFX201",
    "logger": "SFX202",
    "skipped": "SFX203",
    "graph_break": "SFX301",
    "disabled_call": "SFX302",
    "autograd": "SFX303",
    "requires_grad": "SFX304",
    "deepcopy": "SFX305",
    "rnn": "SFX306",
    "sorted": "SFX307",
    "local_object": "SFX310",
    "dynamic_shape": "SFX401",
}
# The GB id of a construct, where its rule covers several constructs with ids of their own
# (a tagged node may also name its ids: a size argument is GB0033 under SFX102).
GB_OF_CONSTRUCT = {"item": ("GB0124",)}


def annotate(graph: Graph, options: Options) -> list[GraphBreakRegion]:
    """Add a region to `graph` for each tagged node dynamo breaks on; return them."""
    for node in [*graph.nodes, *graph.python_calls]:
        if node.meta.get("construct") is None or not _breaks(node, options):
            continue
        cause = node.meta.get("cause")  # SFX310: only if the break inside the method happens
        if cause is not None and not _breaks(cause, options):
            continue
        graph.regions.append(_region(graph, node, RULES[RULE_OF_CONSTRUCT[node.meta["construct"]]]))
    graph.regions.sort(key=lambda region: (region.line, region.col))
    return graph.regions


def _breaks(node: Node, options: Options) -> bool:
    """Does dynamo break on this tagged node under the options' settings?"""
    construct = node.meta["construct"]
    if any(options.captures(setting) for setting in RULES[RULE_OF_CONSTRUCT[construct]].captured_by):
        return False
    return not (construct == "logger" and node.meta.get("qname") in options.ignore_logging_functions)


def _region(graph: Graph, node: Node, rule) -> GraphBreakRegion:
    span: SourceSpan = node.meta["span"]
    report = _report_site(graph.file, span, node.meta.get("stack", ()))
    skipped, context = node.meta.get("frame_skip") or (None, None)
    if skipped:
        impact = f"inside {context}: dynamo gives up and the whole function `{skipped}` runs eagerly"
    else:
        impact = "the graph splits here: code before and after compiles as separate graphs"
    what = node.meta.get("what", node.target)
    site = None if report is span else messages.Site(span.function, messages.display_path(span.file), span.line)
    reason = messages.describe(rule, what, site)
    covered = [*([] if node.meta.get("python") else [node]), *node.meta.get("covers", ())]
    gb_ids = node.meta.get("gb_ids") or GB_OF_CONSTRUCT.get(node.meta["construct"], rule.gb_ids)
    return GraphBreakRegion(
        code=rule.code, reason=reason, gb_ids=gb_ids, workaround=rule.workaround,
        fixable=rule.fixable, impact=impact, line=report.line, col=report.col,
        construct_file=span.file, construct_line=span.line, frame_skipped=skipped, skip_context=context, nodes=covered,
        what=what, site=site,
    )


def _report_site(main_file: str, span: SourceSpan, stack: tuple[SourceSpan, ...]) -> SourceSpan:
    """The innermost place in the linted file: the construct, or the call that reaches it."""
    if span.file == main_file:
        return span
    for site in reversed(stack):
        if site.file == main_file:
            return site
    return span
