"""One version of an editor buffer, linted: what the language server shows for it.

Everything comes from the buffer's unsaved text and the file's path (so that the file's
project and libraries resolve as when the file on disk is linted) through the plugin's own
functions: plugin.analysed gives the diagnostics and the analysis they come from, lint.reported
applies select/ignore and `# noqa`, the configuration is the one `check` reads (settings.load,
found upwards from the file's directory). The quick fixes are `fix`'s rewrites (plan_file and
apply_edits on the buffer's text); the hover is the rule's entry in rules.py.

Nothing here knows the protocol (lsp.py converts): a place is a 0-based line and code-point
columns of the buffer's text.
"""
from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field

from ..config import Options, options_from
from ..ir import Graph, GraphBreakRegion
from ..rules import GB_DOCS, RULES
from .check import Selections
from .lint import Finding, reported
from .options import full_graph_options
from .plugin import analysed
from .selection import NOQA_INLINE, noqa_lines
from .settings import load

FIX_COMMAND = "flake8-staticfx fix"


@dataclass(frozen=True)
class Place:
    """Columns `start` to `end` of 0-based `line`, in code points of the buffer's text."""

    line: int
    start: int
    end: int


@dataclass(frozen=True)
class Elsewhere:
    """The construct of a break reached through a call into another file."""

    path: str  # absolute
    line: int  # 0-based
    text: str


@dataclass(frozen=True)
class Shown:
    """One diagnostic the editor shows: the finding as `check` prints it, where it sits in the
    buffer, the regions it reports (one per compile root that meets it)."""

    finding: Finding
    place: Place
    regions: tuple[tuple[Graph, GraphBreakRegion], ...]
    elsewhere: Elsewhere | None = None

    @property
    def url(self) -> str:
        """The page of the occurrence's first GB id (the rule's when it names none)."""
        gb_ids = self.finding.gb_ids
        return GB_DOCS.format(gb_ids[0].lower()) if gb_ids else self.finding.url

    @property
    def key(self) -> tuple[str, int, int]:
        """(code, line, 0-based byte column): how fix's outcomes name the break."""
        return self.finding.code, self.finding.line, self.finding.col - 1


@dataclass(frozen=True)
class TextChange:
    """Lines `start` to `end` (0-based, `end` excluded) of the buffer replaced by `text`;
    `end` may be the number of lines (to the end of the text)."""

    start: int
    end: int
    text: str
    end_column: int = 0  # at `end` == number of lines of a text without a final newline: its last line's length


@dataclass(frozen=True)
class Action:
    title: str
    kind: str  # "fix" (this diagnostic's rewrite), "noqa", or "fix all" (every rewrite of the file)
    change: TextChange
    shown: Shown | None = None  # the diagnostic it fixes or silences


@dataclass
class BufferLint:
    """The lint of one version of one buffer. Built in the analysis thread; the fix plan and
    the graph counts are worked out on first use (a code action, a hover), in that thread too."""

    path: str
    text: str
    version: int | None
    options: Options
    shown: list[Shown] = field(default_factory=list)
    parsed: bool = True  # False: the text does not parse (the previous diagnostics stay up)
    _analysis: object = None
    _plan: tuple | None = None
    _changes: dict = field(default_factory=dict)
    _graph_counts: dict[str, int] | None = None

    @classmethod
    def of(cls, path: str, text: str, version: int | None) -> BufferLint:
        """Analyse `text` as the content of `path` with the [flake8] settings found for it.
        Raises settings.ConfigError for a configuration file that cannot be used."""
        values = load(cwd=os.path.dirname(os.path.abspath(path))).values
        options = options_from(values)
        lint = cls(path, text, version, options)
        lines = text.splitlines(True)
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):  # ValueError: a null byte
            lint.parsed = False
            return lint
        lint._analysis, diagnosed = analysed(text, path, tree, options)
        findings = reported(path, lines, diagnosed, Selections(values).for_file(path), options)
        regions = _regions_by_line(lint._analysis)
        lint.shown = [_shown(finding, lines, regions.get((finding.line, finding.code), ()), path)
                      for finding in findings]
        return lint

    def at(self, line: int, column: int) -> list[Shown]:
        """The diagnostics whose place holds the position."""
        return [s for s in self.shown if s.place.line == line and s.place.start <= column <= s.place.end]

    def on_lines(self, first: int, last: int) -> list[Shown]:
        return [s for s in self.shown if first <= s.place.line <= last]

    # -- code actions -----------------------------------------------------------------------

    def actions(self, first: int, last: int) -> list[Action]:
        """For each diagnostic on lines `first`..`last`: fix's rewrite of it (when fix has one
        for this occurrence) and a `# noqa` for its code; then every rewrite of the file's
        diagnostics at once, when there is one."""
        found = []
        rewrites = self.rewrites()
        for shown in self.on_lines(first, last):
            edit = rewrites.get(shown.key)
            if edit is not None:
                found.append(Action(f"Fix {shown.finding.code}: {edit.outcome.summary}", "fix",
                                    self._change((shown.key,)), shown))
            found.append(Action(f"Add `# noqa: {shown.finding.code}`", "noqa", self.noqa(shown), shown))
        if rewrites:
            found.append(Action(f"Fix all {len(rewrites)} fixable graph break(s) in the file ({FIX_COMMAND})",
                                "fix all", self._change(tuple(rewrites))))
        return found

    def rewrites(self) -> dict:
        """fix's edit for each shown diagnostic it rewrites, keyed like Shown.key (planned on
        first use: a LibCST parse and scope resolution of the buffer, seconds on 500 lines)."""
        if self._plan is None:
            self._plan = self._make_plan()
        edits = self._plan[1]
        shown = {s.key for s in self.shown}
        return {key: edit for edit in edits
                if (key := (edit.outcome.code, edit.outcome.line, edit.outcome.col)) in shown}

    def prepare_fixes(self) -> None:
        """Plan the rewrites and the fix-all change ahead of the code action that asks."""
        rewrites = self.rewrites()
        if rewrites:
            self._change(tuple(rewrites))

    def _make_plan(self) -> tuple:
        if self._analysis is None or not self.shown:
            return None, []
        from ..fix import plan_file

        try:
            ctx, edits, _ = plan_file(self.text, self.path, self._analysis)
        except Exception:  # noqa: BLE001 - a rewrite that fails is a fix not offered, never a broken server
            return None, []
        return ctx, edits

    def _change(self, keys: tuple[tuple[str, int, int], ...]) -> TextChange:
        """The buffer rewritten by the edits of these diagnostics (each LibCST transform of
        the whole module is made once per version)."""
        if keys not in self._changes:
            from ..fix import apply_edits

            rewrites = self.rewrites()
            self._changes[keys] = text_change(self.text, apply_edits(self._plan[0], [rewrites[k] for k in keys]))
        return self._changes[keys]

    def noqa(self, shown: Shown) -> TextChange:
        """`# noqa: CODE` at the end of the last line of the reported line's logical piece
        (where flake8 looks for it: a continued or multi-line-string line shares it), added
        to a `# noqa:` list already there."""
        lines = self.text.splitlines(True)
        last = _noqa_line(lines, shown.finding.line)
        body = lines[last - 1].rstrip("\r\n")
        ending = lines[last - 1][len(body):]
        code = shown.finding.code
        existing = NOQA_INLINE.search(body)
        if existing is not None and existing.group("codes"):
            end = existing.end("codes")
            body = f"{body[:end].rstrip(', ')}, {code}{body[end:]}"
        else:
            body = f"{body}  # noqa: {code}"
        return TextChange(last - 1, last, body + ending)

    # -- hover ------------------------------------------------------------------------------

    def hover(self, shown: Shown) -> str:
        """Markdown: the rule (its name, summary, GB pages, fix) and the predicted graph count
        of each compile root the diagnostic is in, as `flake8-staticfx report` counts them."""
        from .rule_docs import documentation  # imports fix (libcst): only once a hover asks

        doc = documentation(RULES[shown.finding.code])
        gb = ", ".join(f"[{gb_id}]({GB_DOCS.format(gb_id.lower())})"
                       for gb_id in shown.finding.gb_ids or [entry["id"] for entry in doc["gb_ids"]])
        parts = [f"**{doc['code']}** `{doc['name']}`: {doc['summary']} ({gb})",
                 f"**Fix**: {doc['workaround']}."]
        if doc["fix"]:
            parts.append(f"**`{FIX_COMMAND}`** rewrites: {doc['fix']}.")
        counts = self.graph_counts()
        for root in dict.fromkeys(graph.root for graph, _ in shown.regions):
            if root in counts:
                parts.append(f"`{root}` compiles to **{counts[root]}** graph(s) (predicted).")
        where = shown.elsewhere
        if where is not None:
            parts.append(f"The construct: `{where.text}` at {where.path}:{where.line + 1}.")
        return "\n\n".join(parts)

    def graph_counts(self) -> dict[str, int]:
        """Root name -> graphs dynamo compiles for one call: the file analysed again with every
        call drawn in full (the lint reuses call summaries, which keep breaks, not graphs)."""
        if self._graph_counts is None:
            from ..analysis import analyze
            from .report import predicted_graphs

            analysis = analyze(self.text, self.path, options=full_graph_options(self.options))
            self._graph_counts = {graph.root: predicted_graphs(graph) for graph in analysis.graphs}
        return self._graph_counts


def _regions_by_line(analysis) -> dict[tuple[int, str], list[tuple[Graph, GraphBreakRegion]]]:
    found: dict[tuple[int, str], list] = {}
    for graph in analysis.graphs if analysis is not None else ():
        for region in graph.regions:
            found.setdefault((region.line, region.code), []).append((graph, region))
    return found


def _shown(finding: Finding, lines: list[str], regions, path: str) -> Shown:
    line = lines[finding.line - 1] if 0 < finding.line <= len(lines) else ""
    start = len(line.encode("utf-8")[:finding.col - 1].decode("utf-8", errors="ignore"))
    end = len(line.rstrip())
    elsewhere = None
    for _, region in regions:
        if os.path.abspath(region.construct_file) != os.path.abspath(path):
            elsewhere = Elsewhere(os.path.abspath(region.construct_file), region.construct_line - 1, region.what)
        elif region.what and "\n" not in region.what and line.startswith(region.what, start):
            end = start + len(region.what)
    return Shown(finding, Place(finding.line - 1, start, max(end, start)), tuple(regions), elsewhere)


def _noqa_line(lines: list[str], line: int) -> int:
    """The last physical line of the piece flake8 searches for `line`'s `# noqa`
    (selection.noqa_lines maps every line of a piece to the same joined text)."""
    pieces = noqa_lines(lines)
    joined = pieces.get(line)
    last = line
    while joined is not None and pieces.get(last + 1) is joined:
        last += 1
    return last


def text_change(before: str, after: str) -> TextChange:
    """The smallest run of whole lines that turns `before` into `after`."""
    old, new = before.splitlines(True), after.splitlines(True)
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    end = len(old) - tail
    end_column = 0
    if end == len(old) and old and not old[-1].endswith(("\n", "\r")):
        end, end_column = end - 1, len(old[-1])  # the last line has no newline to end before
    return TextChange(head, end, "".join(new[head:len(new) - tail]), end_column)
