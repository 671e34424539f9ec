"""Compare flake8-staticfx diagnostics with a recorded dynamo truth, line by line.

    python tests/oracle/scoring.py                      # lint tests/cases and print the report
    python tests/oracle/scoring.py --truth T --flake8 OUT  # score a saved flake8 output
    python tests/oracle/scoring.py --torch-version 2.14    # lint for 2.14, score against truth-2.14.json

Definitions (per file of the cases directory; paths are relative to it):

* A break's *site* is where the linter promises to report it: the innermost frame of the
  break's user stack that lies in the case file that ran it (the file with the CASES entry).
  For a construct inside a function of another file of the package, that is the call site in
  the case file (the linter reports there); otherwise it is dynamo's own innermost line.
* Lines are compared by statement: a diagnostic anywhere in the statement holding a line
  (for if/for/while/with/def/class, the header only) counts for that line, because dynamo and
  the linter may name different physical lines of one multi-line statement.
* recall: share of break sites with a diagnostic on their statement. Breaks at one site count
  once. ``recall (stack)`` also accepts a diagnostic on any frame of the break's stack.
* A diagnostic is *correct* on the statement of any frame, in any file of the cases
  directory, of any break's user stack; a *false alarm* on a line that ran eagerly where no
  break's stack passes; *unverified* otherwise: a line that never ran, or that follows a break
  after which dynamo gave up on the whole frame (it never looked at the rest of that function).
* precision: correct / (correct + false alarms).
* GB-id accuracy: share of the flagged sites where a diagnostic on the statement names (in its
  message) a GB id dynamo gave for a break there.
* A to-do item (its message ends "(reached once line N no longer breaks)") is a break dynamo
  reaches only once an earlier one is fixed: the truth of the file as it is cannot judge it, so
  it is counted apart and scored neither way (tests/test_todo.py checks them on fixed variants).
* A recompile (SFX5xx) is no break: a truth of one call per case cannot judge it, so it is left
  out here; tests/oracle/recompile_scoring.py scores the family against recorded call sequences.
"""
from __future__ import annotations

import argparse
import ast
import os
import re
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
DEFAULT_CASES = os.path.join(REPO, "tests", "cases")
GB_ID = re.compile(r"\bGB\d{4}\b")
WAITING = re.compile(r"\(reached once line \d+ no longer breaks\)$")
RECOMPILE = re.compile(r"SFX5\d\d$")  # the recompile family: scored by recompile_scoring.py
DIAGNOSTIC = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?:(?P<col>\d+):)?\s+(?P<code>[A-Z]+\d+)\s?(?P<msg>.*)$")

sys.path.insert(0, HERE)
from record_truth import expand_lines  # noqa: E402


# ---------------------------------------------------------------------------------------------
# Source structure


class SourceFile:
    """Statement spans and function spans of one file, by line."""

    def __init__(self, path: str):
        self.path = path
        try:
            with open(path, encoding="utf-8") as handle:
                self.text = handle.read()
            self.tree = ast.parse(self.text, path)
        except (OSError, SyntaxError):
            self.text, self.tree = "", None
        self.lines = self.text.splitlines()
        self._statement: dict[int, tuple[int, int]] = {}
        self.functions: list[tuple[int, int]] = []
        if self.tree is not None:
            self._index()

    def _index(self):
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                self.functions.append((node.lineno, node.end_lineno or node.lineno))
            if not isinstance(node, ast.stmt):
                continue
            first = node.lineno
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                header_end = body[0].lineno - 1
                if getattr(node, "decorator_list", None):
                    first = min(d.lineno for d in node.decorator_list)
                last = max(node.lineno, header_end)
            else:
                last = node.end_lineno or node.lineno
            for line in range(first, last + 1):
                old = self._statement.get(line)
                if old is None or (last - first) < (old[1] - old[0]):
                    self._statement[line] = (first, last)

    def statement(self, line: int) -> tuple[int, int]:
        return self._statement.get(line, (line, line))

    def statement_lines(self, line: int) -> set[int]:
        first, last = self.statement(line)
        return set(range(first, last + 1))

    def rest_of_function(self, line: int) -> set[int]:
        """Lines after `line` in the innermost function holding it."""
        around = [span for span in self.functions if span[0] <= line <= span[1]]
        if not around:
            return set()
        first, last = max(around)
        return set(range(line + 1, last + 1))

    def source(self, line: int) -> str:
        return self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""


# ---------------------------------------------------------------------------------------------
# Truth


@dataclass
class Site:
    file: str
    line: int
    titles: set[str] = field(default_factory=set)
    gb_ids: set[str] = field(default_factory=set)
    stacks: list[list[tuple[str, int]]] = field(default_factory=list)
    cases: set[str] = field(default_factory=set)


@dataclass
class Truth:
    sites: dict[tuple[str, int], Site]
    frames: dict[str, set[int]]          # file -> lines on some break's stack (statement-expanded)
    frame_gb_ids: dict[tuple[str, int], set[str]]  # (file, line on a stack) -> GB ids of its breaks
    executed: dict[str, set[int]]        # file -> lines that ran eagerly (statement-expanded)
    unobservable: dict[str, set[int]]    # file -> lines dynamo never judged
    errors: list[str]


def load_truth(document: dict, cases_dir: str) -> Truth:
    sources: dict[str, SourceFile] = {}

    def src(name: str) -> SourceFile:
        if name not in sources:
            sources[name] = SourceFile(os.path.join(cases_dir, name))
        return sources[name]

    sites: dict[tuple[str, int], Site] = {}
    frames: dict[str, set[int]] = defaultdict(set)
    frame_gb_ids: dict[tuple[str, int], set[str]] = defaultdict(set)
    executed: dict[str, set[int]] = defaultdict(set)
    unobservable: dict[str, set[int]] = defaultdict(set)
    errors: list[str] = []
    for case_file, entry in document["files"].items():
        for case in entry["cases"]:
            label = f"{case_file}::{case.get('name')}"
            for key in ("eager_error", "worker_error"):
                if case.get(key):
                    errors.append(f"{label}: {key} {case[key]}")
            for name, lines in (case.get("executed") or {}).items():
                for line in expand_lines(lines):
                    executed[name] |= src(name).statement_lines(line)
            for brk in case.get("breaks", []):
                stack = [(name, line) for name, line, _ in brk.get("stack") or []]
                if not stack and brk.get("file"):
                    stack = [(brk["file"], brk["line"])]
                if not stack:
                    errors.append(f"{label}: a break outside the cases directory: {brk.get('title')}")
                    continue
                gb_id = brk.get("gb") or "no GB id"
                for name, line in stack:
                    lines = src(name).statement_lines(line)
                    frames[name] |= lines
                    for each in lines:
                        frame_gb_ids[(name, each)].add(gb_id)
                    if brk.get("frame_skipped"):
                        unobservable[name] |= src(name).rest_of_function(line)
                own = [frame for frame in stack if frame[0] == case_file]
                site_file, site_line = own[-1] if own else stack[-1]
                first = src(site_file).statement(site_line)[0]
                site = sites.setdefault((site_file, first), Site(site_file, site_line))
                site.titles.add(brk.get("title") or "?")
                site.gb_ids.add(gb_id)
                site.stacks.append(stack)
                site.cases.add(label)
    return Truth(sites, dict(frames), dict(frame_gb_ids), dict(executed), dict(unobservable), errors)


# ---------------------------------------------------------------------------------------------
# Diagnostics


def run_flake8(cases_dir: str, extra: tuple[str, ...] = ()) -> str:
    cmd = [sys.executable, "-m", "flake8", "--select=SFX", "--isolated", *extra,
           os.path.relpath(cases_dir, REPO)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
    if proc.returncode not in (0, 1) or proc.stderr.strip():
        raise RuntimeError(f"flake8 failed (rc={proc.returncode}):\n{proc.stderr}")
    return proc.stdout


def parse_diagnostics(text: str, cases_dir: str, base: str = REPO) -> dict[str, dict[int, list[str]]]:
    """file (relative to the cases directory) -> line -> ["SFX101 message", ...]; to-do items
    left out (see waiting_items)."""
    found: dict[str, dict[int, list[str]]] = defaultdict(lambda: defaultdict(list))
    real_cases = os.path.realpath(cases_dir)
    for raw in text.splitlines():
        match = DIAGNOSTIC.match(raw)
        if not match or WAITING.search(match["msg"]) or RECOMPILE.match(match["code"]):
            continue
        path = os.path.realpath(os.path.join(base, match["path"]))
        name = os.path.relpath(path, real_cases).replace(os.sep, "/")
        found[name][int(match["line"])].append(f"{match['code']} {match['msg']}".strip())
    return found


def waiting_items(text: str) -> int:
    """How many diagnostics of flake8's output are to-do items."""
    return sum(1 for raw in text.splitlines() if (match := DIAGNOSTIC.match(raw)) and WAITING.search(match["msg"]))


# ---------------------------------------------------------------------------------------------
# Score


@dataclass
class Report:
    sites: int = 0
    hits: int = 0
    stack_hits: int = 0
    gb_right: int = 0  # flagged sites whose diagnostic names one of dynamo's GB ids there
    gb_wrong: list[tuple[str, int, str, str]] = field(default_factory=list)
    diagnostics: int = 0
    waiting: int = 0  # to-do items, not scored
    correct: int = 0
    false_alarms: list[tuple[str, int, list[str], str]] = field(default_factory=list)
    misses: list[tuple[str, int, str, str, bool]] = field(default_factory=list)
    unverified: list[tuple[str, int, list[str], str]] = field(default_factory=list)
    by_title: dict[str, list[int]] = field(default_factory=dict)
    by_gb_id: dict[str, list[int]] = field(default_factory=dict)      # GB id -> [flagged, sites]
    by_code: dict[str, list[int]] = field(default_factory=dict)       # code -> [correct, false, no verdict]
    code_gb_ids: dict[str, set[str]] = field(default_factory=dict)    # code -> GB ids it was right on
    errors: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        judged = self.correct + len(self.false_alarms)
        return self.correct / judged if judged else 1.0

    @property
    def recall(self) -> float:
        return self.hits / self.sites if self.sites else 1.0

    @property
    def gb_accuracy(self) -> float:
        return self.gb_right / self.hits if self.hits else 1.0

    @property
    def stack_recall(self) -> float:
        return self.stack_hits / self.sites if self.sites else 1.0

    def render(self, verbose: bool = True) -> str:
        out = [
            f"break sites {self.sites}; diagnostics on {self.diagnostics} lines; {self.waiting} to-do items, "
            "not scored",
            f"precision {self.precision:.3f}  ({self.correct} correct, {len(self.false_alarms)} false alarms, "
            f"{len(self.unverified)} without a verdict)",
            f"recall    {self.recall:.3f}  ({self.hits}/{self.sites} sites flagged; "
            f"with any stack frame: {self.stack_recall:.3f})",
            f"GB ids    {self.gb_accuracy:.3f}  ({self.gb_right}/{self.hits} flagged sites name dynamo's GB id)",
            "recall by dynamo reason:",
        ]
        for title, (hit, total) in sorted(self.by_title.items(), key=lambda kv: (-kv[1][1], kv[0])):
            out.append(f"  {hit:3d}/{total:<3d} {title[:90]}")
        out += self.render_tables()
        if verbose:
            for name, line, title, text, on_stack in self.misses:
                extra = " (flagged elsewhere on its stack)" if on_stack else ""
                out.append(f"MISS        {name}:{line}  [{title[:60]}]{extra}  {text}")
            for name, line, codes, text in self.false_alarms:
                out.append(f"FALSE ALARM {name}:{line}  {'; '.join(codes)}  |  {text}")
            for name, line, said, expected in self.gb_wrong:
                out.append(f"WRONG GB    {name}:{line}  said {said or '-'}, dynamo {expected}")
            for name, line, codes, text in self.unverified:
                out.append(f"NO VERDICT  {name}:{line}  {'; '.join(c.split()[0] for c in codes)}  |  {text}")
        for error in self.errors:
            out.append(f"TRUTH ERROR {error}")
        return "\n".join(out)

    def render_tables(self) -> list[str]:
        """Recall per dynamo GB id and precision per linter code, as two aligned tables."""
        out = ["", f"{'GB id':<10} {'sites':>5} {'flagged':>7} {'recall':>6}"]
        for gb_id, (hit, total) in sorted(self.by_gb_id.items()):
            out.append(f"{gb_id:<10} {total:5d} {hit:7d} {hit / total:6.2f}")
        out += ["", f"{'code':<7} {'lines':>5} {'correct':>7} {'false':>5} {'no verdict':>10} "
                    f"{'precision':>9}  GB ids it was right on"]
        for code, (correct, false, unjudged) in sorted(self.by_code.items()):
            judged = correct + false
            precision = f"{correct / judged:9.2f}" if judged else f"{'-':>9}"
            gb_ids = " ".join(sorted(self.code_gb_ids.get(code, ())))
            out.append(f"{code:<7} {correct + false + unjudged:5d} {correct:7d} {false:5d} "
                       f"{unjudged:10d} {precision}  {gb_ids}")
        return out


def score(document: dict, diagnostics: dict[str, dict[int, list[str]]], cases_dir: str) -> Report:
    truth = load_truth(document, cases_dir)
    report = Report(errors=list(truth.errors))
    sources: dict[str, SourceFile] = {}

    def src(name: str) -> SourceFile:
        if name not in sources:
            sources[name] = SourceFile(os.path.join(cases_dir, name))
        return sources[name]

    flagged = {name: set(lines) for name, lines in diagnostics.items()}
    for key in sorted(truth.sites):
        site = truth.sites[key]
        report.sites += 1
        predicted = flagged.get(site.file, set())
        hit = bool(src(site.file).statement_lines(site.line) & predicted)
        on_stack = any(
            src(name).statement_lines(line) & flagged.get(name, set())
            for stack in site.stacks for name, line in stack)
        report.hits += hit
        report.stack_hits += hit or on_stack
        if hit:
            lines = src(site.file).statement_lines(site.line)
            said = {gb for line in lines for text in diagnostics.get(site.file, {}).get(line, ())
                    for gb in GB_ID.findall(text)}
            if said & site.gb_ids:
                report.gb_right += 1
            else:
                report.gb_wrong.append((site.file, site.line, "/".join(sorted(said)), "/".join(sorted(site.gb_ids))))
        for title in site.titles:
            counts = report.by_title.setdefault(title, [0, 0])
            counts[0] += hit
            counts[1] += 1
        for gb_id in site.gb_ids:
            counts = report.by_gb_id.setdefault(gb_id, [0, 0])
            counts[0] += hit
            counts[1] += 1
        if not hit:
            report.misses.append((site.file, site.line, " | ".join(sorted(site.titles)),
                                  src(site.file).source(site.line), on_stack))
    for name in sorted(diagnostics):
        for line in sorted(diagnostics[name]):
            codes = diagnostics[name][line]
            report.diagnostics += 1
            if line in truth.frames.get(name, set()):
                report.correct += 1
                verdict = 0
            elif line in truth.executed.get(name, set()) and line not in truth.unobservable.get(name, set()):
                report.false_alarms.append((name, line, codes, src(name).source(line)))
                verdict = 1
            else:
                report.unverified.append((name, line, codes, src(name).source(line)))
                verdict = 2
            for code in {text.split()[0] for text in codes}:
                report.by_code.setdefault(code, [0, 0, 0])[verdict] += 1
                if verdict == 0:
                    report.code_gb_ids.setdefault(code, set()).update(
                        truth.frame_gb_ids.get((name, line), ()))
    return report


def main(argv=None) -> int:
    import json
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", default=DEFAULT_CASES)
    ap.add_argument("--truth", help="truth file (default: CASES/truth.json)")
    ap.add_argument("--flake8", help="saved flake8 output (default: run flake8 now)")
    ap.add_argument("--torch-version", metavar="X.Y",
                    help="lint with --staticfx-torch-version X.Y; the truth defaults to CASES/truth-X.Y.json "
                         "(truth.json: 2.13)")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    cases_dir = os.path.abspath(args.cases)
    own_truth = "truth.json" if args.torch_version in (None, "2.13") else f"truth-{args.torch_version}.json"
    with open(args.truth or os.path.join(cases_dir, own_truth), encoding="utf-8") as handle:
        document = json.load(handle)
    if args.flake8:
        with open(args.flake8, encoding="utf-8") as handle:
            text = handle.read()
        base = os.getcwd()
    else:
        extra = ("--staticfx-torch-version", args.torch_version) if args.torch_version else ()
        text, base = run_flake8(cases_dir, extra), REPO
    report = score(document, parse_diagnostics(text, cases_dir, base), cases_dir)
    report.waiting = waiting_items(text)
    print(report.render(verbose=not args.quiet))
    return 0


if __name__ == "__main__":
    sys.exit(main())
