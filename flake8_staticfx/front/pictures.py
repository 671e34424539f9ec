"""Pictures of the static graphs: SVG through Graphviz `dot`, and one self-contained HTML page
(no network, inline CSS and JS) to look at a real model with.

The page shows the file's source on the right and, per compile root on the left, its breaks
(each listed once, ×N for a loop unrolled: `explain.unique_breaks`), then its nodes grouped by
the submodule whose code made them (one collapsible `<details>` each, a layered drawing of boxes
sized to their text), coloured by the compiled graph dynamo is predicted to put them in
(`segments.assign`). A break card and its source line link to each other; a search box finds
nodes by name, target or line. The URL hash drives the same actions (`#search=conv1`,
`#click=ID`) so that a headless browser can check them.
"""
from __future__ import annotations

import collections
import html
import linecache
import os
import shutil
import subprocess
from dataclasses import dataclass, field

from .. import segments
from ..analysis import FileAnalysis
from .explain import RepeatedBreak, unique_breaks
from ..fix import has_rewrite
from ..messages import condition_label
from ..ir import Graph, GraphBreakRegion, Node, SourceSpan
from .report import render_dot

GRAPH_COLORS = ("#bfdbfe", "#bbf7d0", "#fde68a", "#ddd6fe", "#a5f3fc", "#fbcfe8", "#d9f99d", "#fed7aa",
                "#c7d2fe", "#99f6e4")
EAGER_COLOR, NO_OP_COLOR, BREAK_COLOR = "#d1d5db", "#ffffff", "#dc2626"
# Monospace 11px: a character is about 6.7 px wide; a text line 14 px high.
CHAR_W, LINE_H, PAD, GAP_X, GAP_Y, MARGIN, WRAP, MAX_ROW = 6.7, 14, 8, 16, 22, 10, 38, 760
SUMMARY_CHAR_W, SUMMARY_EXTRA = 8.5, 240  # a group's title: bold 14px, then its node count and chips


def graphviz_svg(analysis: FileAnalysis) -> str:
    """SVG through Graphviz; raises RuntimeError when `dot` is not installed."""
    dot = shutil.which("dot")
    if dot is None:
        raise RuntimeError("Graphviz `dot` is not installed (apt-get install graphviz); "
                           "`--format html` draws the graphs without it")
    result = subprocess.run([dot, "-Tsvg"], input=render_dot(analysis), capture_output=True,
                            text=True, timeout=60, check=True)
    return result.stdout


@dataclass
class _Group:
    """The nodes one chain of inlined calls made: the root's own code, or a submodule's."""

    stack: tuple[SourceSpan, ...]
    nodes: list[Node] = field(default_factory=list)

    def label(self, root: str) -> str:
        """The submodule's path: what its module targets share (`resnets.0` for
        `resnets.0.conv1`), else the calls as written (`get_timestep_embedding`)."""
        if not self.stack:
            return f"{root} (own code)"
        owners = [n.target.split(".")[:-1] for n in self.nodes if n.op in ("call_module", "get_attr")]
        shared = os.path.commonprefix(owners) if owners else []
        return ".".join(shared) or " › ".join(_callee(site) for site in self.stack)


def _callee(site: SourceSpan) -> str:
    """The function a call site calls, as written (`self.mlp(x)` → `mlp`)."""
    text = linecache.getline(site.file, site.line)[site.col:]
    return text.split("(", 1)[0].strip().removeprefix("self.") or f"{site.function} line {site.line}"


def _groups(graph: Graph) -> list[_Group]:
    """The root's nodes by the chain of calls that made them, in the order the code reaches each."""
    groups: dict[tuple, _Group] = {}
    for node in graph.nodes:
        stack = node.origin.stack
        key = tuple((s.file, s.line, s.col) for s in stack)
        groups.setdefault(key, _Group(stack)).nodes.append(node)
    return list(groups.values())


@dataclass
class _Colours:
    """Each node's predicted graph (segments.assign), and the breaks among the nodes."""

    graph_of: dict[Node, int | None]
    break_of: dict[Node, GraphBreakRegion]
    covered: set[Node]

    def fill(self, node: Node) -> str:
        number = self.graph_of.get(node)
        if number is not None:
            return GRAPH_COLORS[(number - 1) % len(GRAPH_COLORS)]
        return EAGER_COLOR if self.eager(node) else NO_OP_COLOR

    def where(self, node: Node) -> str:
        number = self.graph_of.get(node)
        if number is not None:
            return f"graph {number}"
        return "runs eagerly" if self.eager(node) else "no operation (an input, an attribute, a shape read)"

    def eager(self, node: Node) -> bool:
        """An operation (or a break) in no compiled graph: Python runs it."""
        return self.graph_of.get(node) is None and (node in self.break_of or segments.is_op(node))


def _as_code(node: Node) -> str:
    """What the node does, as the model's code writes it."""
    return {"placeholder": "input", "output": "return", "get_attr": f"self.{node.target}",
            "call_module": f"self.{node.target}(…)", "call_method": f".{node.target}()",
            }.get(node.op, f"{node.target}()")


def _wrap(text: str, separator: str) -> list[str]:
    """Lines of at most WRAP characters, cut after a separator (a single longer part stays whole)."""
    parts = text.split(separator)
    lines = [""]
    for index, part in enumerate(parts):
        piece = part + separator if index < len(parts) - 1 else part
        if lines[-1] and len(lines[-1]) + len(piece.rstrip()) > WRAP:
            lines[-1] = lines[-1].rstrip()
            lines.append(piece)
        else:
            lines[-1] += piece
    return lines


Line = list[tuple[str, str]]  # a line of text in a box: (style, words) pieces, a space apart


def _box_text(node: Node, outside: list[Node], colours: _Colours) -> list[Line]:
    """The lines in a node's box: its name and code (on one line when they fit), the inputs
    from other groups, its break."""
    code = _wrap(_as_code(node), ".")
    if len(code) == 1 and len(node.name) + 1 + len(code[0]) <= WRAP:
        lines = [[("name", node.name), ("code", code[0])]]
    else:
        lines = [[("name", node.name)], *([("code", line)] for line in code)]
    if outside:
        lines += [[("from", line)] for line in _wrap("← " + ", ".join(n.name for n in outside), ", ")]
    region = colours.break_of.get(node)
    if region is not None:
        lines.append([("break", f"⚠ {region.code} breaks here (line {region.line})")])
    return lines


def _length(line: Line) -> int:
    return sum(len(words) for _, words in line) + len(line) - 1


def _group_svg(nodes: list[Node], colours: _Colours, ids: dict[Node, str], main_file: str) -> tuple[str, float]:
    """A layered drawing of one group: a node one row below the lowest of its inputs in the
    group, then moved down to just above its first user (a node unconnected in the group at the
    bottom), each row ordered by where its inputs sit (fewer crossings), boxes sized to their text. Returns the
    SVG and its width."""
    inside = set(nodes)
    layer: dict[Node, int] = {}
    for node in nodes:
        layer[node] = 1 + max((layer[i] for i in node.inputs() if i in inside), default=-1)
    bottom = max(layer.values())
    for node in reversed(nodes):  # a node sits just above its first user: short edges
        if node.op == "placeholder":
            continue
        users = [layer[u] for u in node.users if u in inside]
        if users:
            layer[node] = min(users) - 1
        elif not any(i in inside for i in node.inputs()):
            layer[node] = bottom  # unconnected in the group: at the bottom, with the results
    rows: dict[int, list[Node]] = {}
    for node in nodes:
        rows.setdefault(layer[node], []).append(node)
    text = {node: _box_text(node, list(dict.fromkeys(i for i in node.inputs() if i not in inside)), colours)
            for node in nodes}
    size = {node: (PAD * 2 + CHAR_W * max(_length(line) for line in text[node]), PAD + LINE_H * len(text[node]))
            for node in nodes}
    lines = _rows(rows, size, inside)
    width = max(_row_width(line, size) for line in lines) + 2 * MARGIN
    centre: dict[Node, float] = {}
    position: dict[Node, tuple[float, float]] = {}
    y = MARGIN
    for line in lines:
        x = (width - _row_width(line, size)) / 2
        for node in line:
            position[node] = (x, y)
            centre[node] = x + size[node][0] / 2
            x += size[node][0] + GAP_X
        y += max(size[n][1] for n in line) + GAP_Y
    height = y - GAP_Y + MARGIN
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
             f'font-family="monospace" font-size="11">']
    for node in nodes:
        x2, y2 = position[node]
        for used in dict.fromkeys(i for i in node.inputs() if i in inside):
            x1, y1 = centre[used], position[used][1] + size[used][1]
            bend = max(GAP_Y, (y2 - y1) / 2)
            parts.append(f'<path d="M{x1:.0f},{y1:.0f} C{x1:.0f},{y1 + bend:.0f} {centre[node]:.0f},{y2 - bend:.0f} '
                         f'{centre[node]:.0f},{y2 - 4:.0f}" fill="none" stroke="#9ca3af"/>'
                         f'<circle cx="{centre[node]:.0f}" cy="{y2 - 3:.0f}" r="2.5" fill="#6b7280"/>')
    for node in nodes:
        parts.append(_node_svg(node, position[node], size[node], text[node], colours, ids[node], main_file))
    parts.append("</svg>")
    return "".join(parts), width


def _rows(layers: dict[int, list[Node]], size: dict[Node, tuple[float, float]], inside: set[Node]) -> list[list[Node]]:
    """The rows drawn: each layer ordered by the mean position of its inputs above it, and cut
    into rows of at most MAX_ROW px so that a wide layer does not widen the whole drawing."""
    centre: dict[Node, float] = {}
    drawn: list[list[Node]] = []
    for number in sorted(layers):
        members = sorted(layers[number], key=lambda n: _barycentre(n, centre, inside))
        first = len(drawn)
        row: list[Node] = []
        for node in members:
            if row and _row_width([*row, node], size) > MAX_ROW:
                drawn.append(row)
                row = []
            row.append(node)
        drawn.append(row)
        for line in drawn[first:]:
            x = 0.0
            for node in line:
                centre[node] = x + size[node][0] / 2
                x += size[node][0] + GAP_X
    return drawn


def _row_width(row: list[Node], size: dict[Node, tuple[float, float]]) -> float:
    return sum(size[n][0] for n in row) + GAP_X * (len(row) - 1)


def _barycentre(node: Node, centre: dict[Node, float], inside: set[Node]) -> float:
    xs = [centre[i] for i in node.inputs() if i in inside]
    return sum(xs) / len(xs) if xs else float("inf")


TEXT_STYLE = {"name": 'font-weight="bold"', "code": "", "from": 'fill="#6b7280" font-style="italic"',
              "break": f'fill="{BREAK_COLOR}" font-weight="bold"'}


def _node_svg(node: Node, at: tuple[float, float], size: tuple[float, float], text: list[Line],
              colours: _Colours, node_id: str, main_file: str) -> str:
    x, y = at
    span = node.origin.span
    line = span.line if span is not None and span.file == main_file else None
    where = f"line {span.line}" + ("" if line else f" of {span.file}") if span is not None else "no line"
    title = f"{node.name}: {node.op} {node.target} ({where}) - {colours.where(node)}"
    region = colours.break_of.get(node)
    if region is not None:
        title += f" - {region.code} {region.reason}"
    stroke = (f'stroke="{BREAK_COLOR}" stroke-width="3"' if region is not None
              else f'stroke="{BREAK_COLOR}" stroke-dasharray="5 3"' if node in colours.covered else 'stroke="#4b5563"')
    lines = "".join(f'<text x="{x + PAD:.0f}" y="{y + PAD / 2 + 11 + LINE_H * i:.0f}">'
                    + " ".join(f'<tspan {TEXT_STYLE[style]}>{html.escape(words)}</tspan>' for style, words in line)
                    + "</text>" for i, line in enumerate(text))
    return (f'<g class="node" id="{node_id}" data-find="{html.escape(f"{node.name} {node.target}".lower())}"'
            + (f' data-line="{line}"' if line else "") +
            f'><title>{html.escape(title)}</title><rect x="{x:.0f}" y="{y:.0f}" width="{size[0]:.0f}" '
            f'height="{size[1]:.0f}" rx="5" fill="{colours.fill(node)}" {stroke}/>{lines}</g>')


def _legend(colours: _Colours, count: int, nodes: list[Node]) -> str:
    """A chip per predicted graph, then the kinds of node the drawing has."""
    ops = collections.Counter(number for number in colours.graph_of.values() if number is not None)
    # a graph without nodes of its own: a cached frame compiled again when its guards fail (segments.py)
    chips = [f'<span style="background:{GRAPH_COLORS[(k - 1) % len(GRAPH_COLORS)]}">graph {k}: '
             f'{f"{ops[k]} ops" if ops[k] else "a recompile"}</span>' for k in range(1, count + 1)]
    kinds = [(any(colours.eager(n) for n in nodes), f'<span style="background:{EAGER_COLOR}">runs eagerly</span>'),
             (any(colours.fill(n) == NO_OP_COLOR for n in nodes),
              f'<span style="background:{NO_OP_COLOR}">no operation</span>'),
             (bool(colours.break_of), '<span class="brk">break</span>'),
             (bool(colours.covered), '<span class="cov">under a break</span>')]
    return '<p class="legend">' + "".join(chips) + "".join(chip for shown, chip in kinds if shown) + "</p>"


@dataclass
class _Root:
    """A compile root with what the page says of it, worked out once."""

    index: int
    graph: Graph
    segments: segments.Segments
    breaks: list[RepeatedBreak]

    @classmethod
    def of(cls, index: int, graph: Graph) -> _Root:
        return cls(index, graph, segments.assign(graph), unique_breaks(graph))

    def link(self) -> str:
        count = len(self.breaks)
        return (f'<li><a href="#r{self.index}">{html.escape(self.graph.root)}</a> <small>{len(self.graph.nodes)} '
                f'nodes · <span class="{"brk" if count else "ok"}">{count} break(s)</span> · '
                f'{self.segments.count} graph(s)</small></li>')


def _root_html(root: _Root, lines: list[str]) -> str:
    graph, breaks, count = root.graph, root.breaks, root.segments.count
    rid = f"r{root.index}"
    ids = {node: f"{rid}-{node.name}" for node in graph.nodes}
    colours = _Colours(root.segments.graph_of,
                       {node: node.meta["region"] for node in graph.nodes if node.meta.get("region")},
                       {node for region in graph.regions for node in region.nodes})
    cards = "".join(_break_html(f"{rid}-b{k}", brk, lines, graph, ids) for k, brk in enumerate(breaks, 1))
    groups = []
    for group in _groups(graph):
        where = (f' · called at <a class="goto" href="#L{group.stack[0].line}" data-line="{group.stack[0].line}">'
                 f'line {group.stack[0].line}</a>' if group.stack else "")
        graphs = sorted({colours.graph_of.get(n) for n in group.nodes} - {None})
        chips = "".join(f'<i style="background:{GRAPH_COLORS[(k - 1) % len(GRAPH_COLORS)]}">{k}</i>' for k in graphs)
        label = group.label(graph.root)
        drawing, width = _group_svg(group.nodes, colours, ids, graph.file)
        # as wide as the drawing (narrow groups side by side), and the title on one line if it fits
        width = max(width, SUMMARY_CHAR_W * len(label) + SUMMARY_EXTRA)
        groups.append(f'<details class="group" open style="width: {width:.0f}px"><summary>'
                      f'<b>{html.escape(label)}</b> <small>{len(group.nodes)} nodes{where}</small> {chips}</summary>'
                      f'<div class="drawing">{drawing}</div></details>')
    return (f'<section id="{rid}"><h2>{html.escape(graph.root)}</h2>'
            f'<p class="facts">{len(graph.nodes)} nodes · {len(breaks)} break(s) · {count} graph(s) predicted</p>'
            f'{_legend(colours, count, graph.nodes)}<div class="regions">{cards or _clean_html(graph)}</div>'
            f'<div class="groups">{"".join(groups)}</div></section>')


def render_html(analysis: FileAnalysis) -> str:
    """One page, no network: a summary and a search box, each root's breaks and grouped drawing,
    the source beside them."""
    roots = [_Root.of(index, graph) for index, graph in enumerate(analysis.graphs)]
    break_lines: dict[int, list[str]] = {}
    node_lines = set()
    for graph in analysis.graphs:
        for region in graph.regions:
            break_lines.setdefault(region.line, []).append(f"{region.code} {region.reason}")
        node_lines.update(n.origin.span.line for n in graph.nodes
                          if n.origin.span and n.origin.span.file == graph.file)
    notices = "".join(f"<li>{html.escape(n.what)} (line {n.line}): {html.escape(n.reason)}</li>"
                      for n in analysis.notices)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>flake8-staticfx: {html.escape(analysis.path)}</title>
<style>{STYLE}</style></head><body>
<main>
<h1>Static graphs of <code>{html.escape(analysis.path)}</code></h1>
<table class="summary"><tr><td>compile roots</td><td>{len(analysis.graphs)}</td>
<td>nodes</td><td>{sum(len(g.nodes) for g in analysis.graphs)}</td>
<td>graph breaks</td><td>{sum(len(root.breaks) for root in roots)}</td>
<td>graphs predicted</td><td>{sum(root.segments.count for root in roots)}</td></tr></table>
<ul class="roots">{''.join(root.link() for root in roots)}</ul>
<div class="bar"><input id="search" type="search" placeholder="find a node: name, target or line" size="36">
<span id="found"></span> <button id="fold">collapse all</button> <button id="unfold">expand all</button>
<span class="hint">click a break or a node to see its line; click a line to see its nodes</span></div>
{''.join(_root_html(root, analysis.lines) for root in roots)}
{f'<h2>Not analysed</h2><ul>{notices}</ul>' if notices else ''}
</main>
<aside><div class="srchead">{html.escape(analysis.path)}</div>
{_source_html(analysis.lines, break_lines, node_lines)}</aside>
<script>{SCRIPT}</script>
</body></html>
"""


def _source_html(lines: list[str], break_lines: dict[int, list[str]], node_lines: set[int]) -> str:
    """The file, one element per line: a break's line highlighted, a line that made nodes clickable."""
    rows = []
    for number, text in enumerate(lines, 1):
        kind = " brk" if number in break_lines else " has" if number in node_lines else ""
        title = f' title="{html.escape("; ".join(break_lines[number]))}"' if number in break_lines else ""
        rows.append(f'<div class="src{kind}" id="L{number}" data-line="{number}"{title}>'
                    f'<span class="ln">{number}</span>{html.escape(text)}</div>')
    return f'<div class="code">{"".join(rows)}</div>'


STYLE = """
html, body { height: 100%; margin: 0; }
body { display: grid; grid-template-columns: minmax(0, 1fr) minmax(24em, 32%); color: #111827;
  font-family: system-ui, sans-serif; font-size: 14px; }
main { overflow: auto; height: 100vh; box-sizing: border-box; padding: 0 1.2em 3em; }
aside { overflow: auto; height: 100vh; border-left: 1px solid #d1d5db; background: #fafafa; }
h1 { font-size: 1.25em; margin: .8em 0 .3em; } h1 code { font-size: .85em; word-break: break-all; }
h2 { font-size: 1.1em; margin: 1.4em 0 .2em; }
.summary td { padding: 0 .3em 0 0; } .summary td:nth-child(even) { font-weight: bold; padding-right: 1.2em; }
.bar { position: sticky; top: 0; z-index: 2; background: #fff; padding: .5em 0; border-bottom: 1px solid #e5e7eb; }
.bar input { font-size: 1em; padding: .2em .4em; } .hint { color: #6b7280; font-size: .85em; margin-left: .5em; }
#found { color: #1d4ed8; font-weight: bold; }
.roots { columns: 2; margin: .4em 0; padding-left: 1.2em; } .roots small { color: #6b7280; }
.roots .brk { color: #dc2626; font-weight: bold; } .roots .ok { color: #15803d; }
.facts { color: #4b5563; margin: .2em 0; }
.legend { margin: .3em 0 .6em; } .legend span { display: inline-block; padding: 0 .45em; margin: 0 .4em .2em 0;
  border: 1px solid #4b5563; border-radius: 4px; font-size: .85em; }
.legend .brk { border: 3px solid #dc2626; } .legend .cov { border: 1px dashed #dc2626; }
.regions { display: grid; grid-template-columns: repeat(auto-fill, minmax(22em, 1fr)); gap: .6em; margin-bottom: .6em; }
.region { border-left: 4px solid #dc2626; padding: .3em .7em; background: #fef2f2; cursor: pointer; font-size: .92em; }
.region.skip { border-color: #7f1d1d; } .region p { margin: .3em 0; }
.region pre { margin: .3em 0; white-space: pre-wrap; }
.region code { background: #fff; padding: 0 .2em; }
.times { background: #dc2626; color: #fff; padding: 0 .4em; border-radius: 8px; }
.stack { color: #6b7280; font-size: .9em; } .clean { color: #15803d; } .partial { color: #b45309; }
.fixable { color: #1d4ed8; }
.groups { display: flex; flex-wrap: wrap; gap: .5em; align-items: flex-start; }
details.group { border: 1px solid #e5e7eb; border-radius: 6px; max-width: 100%; box-sizing: border-box; }
summary { padding: .25em .6em; cursor: pointer; background: #f9fafb; } summary small { color: #6b7280; }
summary i { font-style: normal; font-size: .8em; padding: 0 .4em; margin-left: .2em; border: 1px solid #4b5563;
  border-radius: 4px; }
.drawing { overflow-x: auto; }
.node { cursor: pointer; } .node.found rect { stroke: #2563eb; stroke-width: 4px; }
.node.linked rect { stroke: #f59e0b; stroke-width: 4px; } .region.linked { outline: 3px solid #f59e0b; }
.srchead { position: sticky; top: 0; background: #e5e7eb; padding: .4em .6em; font: bold 12px monospace;
  word-break: break-all; }
.code { font: 12px/1.5 monospace; white-space: pre; }
.src { padding-right: 1em; } .src:hover { background: #eef2ff; } .src.has { cursor: pointer; }
.src.has .ln, .src.brk .ln { color: #1d4ed8; font-weight: bold; }
.src.brk { background: #fee2e2; box-shadow: inset 4px 0 #dc2626; cursor: pointer; }
.src.current { background: #fde047; }
.ln { display: inline-block; width: 3.2em; margin-right: .8em; text-align: right; color: #9ca3af; user-select: none; }
"""

SCRIPT = """
(function () {
  const all = (selector) => Array.from(document.querySelectorAll(selector));
  function mark(name, elements) {
    all('.' + name).forEach((e) => e.classList.remove(name));
    elements.forEach((e) => {
      e.classList.add(name);
      for (let d = e.closest('details'); d; d = d.parentElement.closest('details')) d.open = true;
    });
  }
  function showLine(number) {
    const line = document.getElementById('L' + number);
    if (!line) return;
    mark('current', [line]);
    line.scrollIntoView({block: 'center'});
  }
  all('.region').forEach((card) => card.addEventListener('click', () => {
    const nodes = card.dataset.nodes.split(' ').map((id) => document.getElementById(id)).filter(Boolean);
    mark('linked', [card, ...nodes]);
    showLine(card.dataset.line);
  }));
  all('.node').forEach((node) => node.addEventListener('click', () => {
    mark('linked', [node]);
    showLine(node.dataset.line);
  }));
  all('.goto').forEach((link) => link.addEventListener('click', (e) => {
    e.preventDefault();
    showLine(link.dataset.line);
  }));
  all('.src').forEach((line) => line.addEventListener('click', () => {
    const at = '[data-line="' + line.dataset.line + '"]';
    const cards = all('.region' + at), nodes = all('.node' + at);
    mark('current', [line]);
    mark('linked', [...cards, ...nodes]);
    const first = cards[0] || nodes[0];
    if (first) first.scrollIntoView({block: 'center', inline: 'center'});
  }));
  const box = document.getElementById('search'), status = document.getElementById('found');
  let found = [], shown = 0;
  function show(index) {
    shown = index;
    found[index].scrollIntoView({block: 'center', inline: 'center'});
    showLine(found[index].dataset.line);
    status.textContent = found.length + ' found' + (found.length > 1 ? ' (' + (index + 1) + ', Enter: next)' : '');
  }
  function search(query) {
    const text = query.trim().toLowerCase(), line = text.match(/^(?:line\\s*|l)?(\\d+)$/);
    found = text ? all('.node').filter((n) => line ? n.dataset.line === line[1] : n.dataset.find.includes(text)) : [];
    mark('found', found);
    status.textContent = text && !found.length ? 'no node found' : '';
    if (found.length) show(0);
  }
  box.addEventListener('input', () => search(box.value));
  box.addEventListener('keydown', (e) => { if (e.key === 'Enter' && found.length) show((shown + 1) % found.length); });
  const fold = (open) => () => all('details.group').forEach((d) => { d.open = open; });
  document.getElementById('fold').addEventListener('click', fold(false));
  document.getElementById('unfold').addEventListener('click', fold(true));
  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.get('search')) { box.value = hash.get('search'); search(box.value); }
  const target = hash.get('click') && document.getElementById(hash.get('click'));
  if (target) {
    target.scrollIntoView({block: 'center'});
    target.dispatchEvent(new MouseEvent('click', {bubbles: true}));
  }
})();
"""


def _break_html(card_id: str, brk: RepeatedBreak, lines: list[str], graph: Graph, ids: dict[Node, str]) -> str:
    """A break's card: where, what dynamo does, the workaround; the nodes of every time it is met."""
    region = brk.region
    skip = " skip" if region.frame_skipped else ""
    code = lines[region.line - 1].strip() if 0 < region.line <= len(lines) else ""
    times = len(brk.occurrences)
    nodes = " ".join(ids[n] for r in brk.occurrences for n in r.nodes if n in ids)
    return (f'<div class="region{skip}" id="{card_id}" data-line="{region.line}" data-nodes="{nodes}">'
            f'<b>{region.code}</b> line {region.line} ({html.escape(", ".join(region.gb_ids))})'
            + (f' <span class="times">×{times}</span> once per iteration' if times > 1 else "") +
            f'<pre><code>{html.escape(code)}</code></pre>'
            + (f'<p class="stack">reached by {html.escape(_calls(brk.user_stack))}</p>'
               if len(brk.user_stack) > 1 else "") +
            f'<p>{html.escape(region.reason)}</p>'
            + (f'<p class="condition">breaks only {html.escape(condition_label(region.conditions))}</p>'
               if region.conditions else "") +
            f'<p><i>{html.escape(region.impact)}</i></p>'
            f'<p>Workaround: {html.escape(region.workaround)}</p>'
            + ('<p class="fixable">fixable: <code>python -m flake8_staticfx fix</code> rewrites this one</p>'
               if has_rewrite(region, graph) else '') + '</div>')


def _calls(stack: list[dict]) -> str:
    """The user stack as one line: `forward line 80 → scale_model_input line 44 → …`."""
    return " → ".join(f"{frame['function']} line {frame['line']}" for frame in stack)


def _clean_html(graph: Graph) -> str:
    """A root without a break compiles as one graph only if nothing in it went unanalysed."""
    unknown = graph.unknown_values()
    if unknown:
        return (f'<p class="partial">No graph break found in what was analysed, but {unknown} value(s) '
                f'could not be followed (drawn <code>&lt;?&gt;</code>): a break may hide there.</p>')
    return '<p class="clean">No graph break: the root compiles as one graph.</p>'
