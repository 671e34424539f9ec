"""Pictures of the static graphs: SVG (Graphviz `dot` when installed, else a built-in
layered layout) and one self-contained HTML page with every root, its breaks and why.
"""
from __future__ import annotations

import html
import shutil
import subprocess

from .analysis import FileAnalysis
from .ir import Graph, GraphBreakRegion, Node
from .fix import has_rewrite
from .report import predicted_graphs, render_dot

BOX_W, BOX_H, GAP_X, GAP_Y, MARGIN = 190, 44, 30, 36, 20
COLORS = {"break": "#f8b4b4", "covered": "#fde2c0", "placeholder": "#dbeafe", "output": "#dcfce7",
          "node": "#f3f4f6"}


def graphviz_svg(analysis: FileAnalysis) -> str:
    """SVG through Graphviz; raises RuntimeError when `dot` is not installed."""
    dot = shutil.which("dot")
    if dot is None:
        raise RuntimeError("Graphviz `dot` is not installed (apt-get install graphviz); "
                           "`--format html` draws the graphs without it")
    result = subprocess.run([dot, "-Tsvg"], input=render_dot(analysis), capture_output=True,
                            text=True, timeout=60, check=True)
    return result.stdout


def _layers(graph: Graph) -> dict[Node, int]:
    """Longest-path layering: a node sits one row below the lowest of its inputs."""
    layer: dict[Node, int] = {}
    for node in graph.nodes:
        layer[node] = 1 + max((layer[i] for i in node.inputs() if i in layer), default=-1)
    return layer


def graph_svg(graph: Graph) -> str:
    """A built-in drawing: rows by data dependence, break nodes coloured, edges as arrows."""
    layer = _layers(graph)
    rows: dict[int, list[Node]] = {}
    for node in graph.nodes:
        rows.setdefault(layer[node], []).append(node)
    position: dict[Node, tuple[int, int]] = {}
    for row, members in rows.items():
        for column, node in enumerate(members):
            position[node] = (MARGIN + column * (BOX_W + GAP_X), MARGIN + row * (BOX_H + GAP_Y))
    width = MARGIN * 2 + max(len(m) for m in rows.values()) * (BOX_W + GAP_X) if rows else 100
    height = MARGIN * 2 + len(rows) * (BOX_H + GAP_Y)
    breaks = {region.nodes[0]: region for region in graph.regions if region.nodes}
    covered = {node for region in graph.regions for node in region.nodes}
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="monospace" font-size="11">',
             '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" '
             'markerHeight="6" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#6b7280"/></marker></defs>']
    for node in graph.nodes:
        x2, y2 = position[node]
        for used in node.inputs():
            x1, y1 = position[used]
            parts.append(f'<line x1="{x1 + BOX_W / 2}" y1="{y1 + BOX_H}" x2="{x2 + BOX_W / 2}" y2="{y2}" '
                         'stroke="#9ca3af" marker-end="url(#arrow)"/>')
    for node in graph.nodes:
        x, y = position[node]
        kind = ("break" if node in breaks else "covered" if node in covered
                else node.op if node.op in ("placeholder", "output") else "node")
        title = html.escape(f"{node.name}: {node.op} {node.target} (line {node.line})")
        if node in breaks:
            title += html.escape(f" - {breaks[node].code} {breaks[node].reason}")
        parts.append(f'<g><title>{title}</title><rect x="{x}" y="{y}" width="{BOX_W}" height="{BOX_H}" '
                     f'rx="6" fill="{COLORS[kind]}" stroke="#4b5563"/>'
                     f'<text x="{x + 8}" y="{y + 17}" font-weight="bold">{html.escape(_fit(node.name))}</text>'
                     f'<text x="{x + 8}" y="{y + 33}">{html.escape(_fit(f"{node.op} {node.target}"))}</text></g>')
    parts.append("</svg>")
    return "\n".join(parts)


def _fit(text: str, limit: int = 26) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_html(analysis: FileAnalysis) -> str:
    """One page, no network: a summary, then each root's drawing beside its break regions."""
    total_breaks = sum(len(g.regions) for g in analysis.graphs)
    sections = []
    for graph in analysis.graphs:
        regions = "".join(_region_html(region, analysis.lines, has_rewrite(region, graph))
                          for region in graph.regions) or _clean_html(graph)
        sections.append(
            f'<section><h2>{html.escape(graph.root)}</h2>'
            f'<p class="facts">{len(graph.nodes)} nodes · {len(graph.regions)} breaks · '
            f'{predicted_graphs(graph)} graph(s) predicted</p>'
            f'<div class="root"><div class="drawing">{graph_svg(graph)}</div>'
            f'<div class="regions">{regions}</div></div></section>')
    notices = "".join(f"<li>{html.escape(n.what)} (line {n.line}): {html.escape(n.reason)}</li>"
                      for n in analysis.notices)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>flake8-staticfx: {html.escape(analysis.path)}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em; color: #111827; }}
h1 {{ font-size: 1.4em; }} h2 {{ font-size: 1.15em; margin-top: 2em; }}
.summary td {{ padding: 0 1em 0 0; }} .facts {{ color: #4b5563; }}
.root {{ display: flex; gap: 2em; align-items: flex-start; }}
.drawing {{ overflow: auto; max-width: 60%; border: 1px solid #e5e7eb; }}
.regions {{ flex: 1; }} .region {{ border-left: 4px solid #dc2626; padding: .4em .8em; margin-bottom: 1em;
  background: #fef2f2; }} .region.skip {{ border-color: #7f1d1d; }}
.region code {{ background: #fff; padding: 0 .2em; }} .clean {{ color: #15803d; }} .partial {{ color: #b45309; }}
.legend span {{ display: inline-block; padding: 0 .5em; margin-right: .5em; border: 1px solid #4b5563; }}
</style></head><body>
<h1>Static graphs of <code>{html.escape(analysis.path)}</code></h1>
<table class="summary"><tr><td>compile roots</td><td>{len(analysis.graphs)}</td></tr>
<tr><td>nodes</td><td>{sum(len(g.nodes) for g in analysis.graphs)}</td></tr>
<tr><td>graph breaks</td><td>{total_breaks}</td></tr>
<tr><td>graphs predicted</td><td>{sum(predicted_graphs(g) for g in analysis.graphs)}</td></tr></table>
<p class="legend"><span style="background:{COLORS['break']}">break</span>
<span style="background:{COLORS['covered']}">in a break region</span>
<span style="background:{COLORS['placeholder']}">input</span>
<span style="background:{COLORS['output']}">output</span></p>
{''.join(sections)}
{f'<h2>Not analysed</h2><ul>{notices}</ul>' if notices else ''}
</body></html>
"""


def _clean_html(graph: Graph) -> str:
    """A root without a break compiles as one graph only if nothing in it went unanalysed."""
    unknown = graph.unknown_values()
    if unknown:
        return (f'<p class="partial">No graph break found in what was analysed, but {unknown} value(s) '
                f'could not be followed (drawn <code>&lt;?&gt;</code>): a break may hide there.</p>')
    return '<p class="clean">No graph break: the root compiles as one graph.</p>'


def _region_html(region: GraphBreakRegion, lines: list[str], fixable: bool = False) -> str:
    skip = " skip" if region.frame_skipped else ""
    gb = ", ".join(region.gb_ids)
    code = lines[region.line - 1].strip() if 0 < region.line <= len(lines) else ""
    return (f'<div class="region{skip}"><b>{region.code}</b> line {region.line} ({html.escape(gb)})'
            f'<pre><code>{html.escape(code)}</code></pre>'
            f'<p>{html.escape(region.reason)}</p><p><i>{html.escape(region.impact)}</i></p>'
            f'<p>Workaround: {html.escape(region.workaround)}</p>'
            + ('<p class="fixable">fixable: <code>python -m flake8_staticfx fix</code> rewrites this one</p>'
               if fixable else '') + '</div>')
