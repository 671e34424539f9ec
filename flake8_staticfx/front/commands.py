"""`graph` and `report`: the static FX graph of each compile root, and a summary per root.

    flake8-staticfx graph FILE [--root NAME] [--format text|dot|json|svg|html]
    flake8-staticfx report DIR [DIR ...] [--format text|json|markdown]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from dataclasses import replace

from ..analysis import FileAnalysis, analyze
from ..config import Options, options_from
from .report import RENDERERS, predicted_graphs
from .settings import add_analysis_arguments, analysis_values, load

GRAPH_FORMATS = (*RENDERERS, "svg", "html")
GRAPH_HELP = "the static graph of each compile root in FILE"
REPORT_HELP = "one row per compile root of the .py files under DIR"


def add_graph_arguments(graph: argparse.ArgumentParser, formats: tuple[str, ...] = GRAPH_FORMATS) -> None:
    graph.add_argument("file")
    graph.add_argument("--root", help="only the root with this name (Class.forward, Class, or function)")
    graph.add_argument("--format", choices=formats, default="text")
    add_compile_options(graph)
    add_view_option(graph, "instance")


def add_report_arguments(report: argparse.ArgumentParser) -> None:
    report.add_argument("paths", nargs="+", metavar="DIR")
    report.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    add_compile_options(report)
    add_view_option(report, "lint")


VIEWS = ("instance", "lint")


def add_view_option(parser: argparse.ArgumentParser, default: str) -> None:
    """The two views, named the same by every command: `instance` is what
    torch.compile(Model()) compiles (constructor defaults, training mode, as torch.fx traces a
    module built with defaults); `lint` keeps both sides of every branch on constructor
    arguments and self.training, as the flake8 plugin checks them."""
    parser.add_argument("--view", choices=VIEWS, default=default,
                        help=f"instance: constructor defaults, as torch.compile(Model()) compiles; "
                             f"lint: every path, as the plugin checks (default: {default})")


def command_options(args: argparse.Namespace) -> Options:
    """The plugin's options as the [flake8] section and the staticfx-* flags give them, the
    short compile flags and the view on top."""
    options = options_from(analysis_values(args, load(args.config, args.isolated)))
    return replace(options, fullgraph=options.fullgraph or args.fullgraph,
                   capture_scalar_outputs=options.capture_scalar_outputs or args.capture_scalar_outputs,
                   capture_dynamic_output_shape_ops=options.capture_dynamic_output_shape_ops
                   or args.capture_dynamic_output_shape_ops,
                   follow_defaults=getattr(args, "view", "lint") == "instance")


def run_report(args: argparse.Namespace) -> int:
    return _report(args, full_graph_options(command_options(args)))


def full_graph_options(options: Options) -> Options:
    """What the commands that print graphs and their counts analyse: every call drawn in full
    (no call summaries, which keep a callee's breaks but not its graphs) with a generous time
    budget, so `graph`, `report` and `explain` give one root the same count."""
    return replace(options, reuse_inlined=False, file_time_budget=60.0)


def add_compile_options(parser: argparse.ArgumentParser) -> None:
    """The dynamo settings as short flags, every staticfx-* option, and where [flake8] is read."""
    parser.add_argument("--fullgraph", action="store_true", help="as torch.compile(fullgraph=True)")
    parser.add_argument("--capture-scalar-outputs", action="store_true")
    parser.add_argument("--capture-dynamic-output-shape-ops", action="store_true")
    parser.add_argument("--config", metavar="FILE", help="read [flake8] from FILE instead of searching for "
                                                         "setup.cfg, tox.ini or .flake8")
    parser.add_argument("--isolated", action="store_true", help="ignore every configuration file")
    add_analysis_arguments(parser)


def _read(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def analyse_roots(args: argparse.Namespace) -> FileAnalysis | None:
    """`graph` and `explain`: FILE analysed as full graphs (a generous time budget), only the
    roots `--root` asks for; None after saying on stderr why not (the exit status is 2)."""
    try:
        source = _read(args.file)
    except (OSError, UnicodeDecodeError) as exc:
        print(f"cannot read {args.file}: {exc}", file=sys.stderr)
        return None
    analysis = analyze(source, args.file, options=full_graph_options(command_options(args)))
    if args.root:
        analysis.graphs = [g for g in analysis.graphs if args.root in (g.root, g.root.split(".")[0])]
        if not analysis.graphs:
            print(f"no compile root named {args.root!r} in {args.file}", file=sys.stderr)
            return None
    return analysis


def run_graph(args: argparse.Namespace) -> int:
    analysis = analyse_roots(args)
    if analysis is None:
        return 2
    if args.format in ("svg", "html"):
        from . import pictures  # only the picture formats need it

        try:
            output = pictures.graphviz_svg(analysis) if args.format == "svg" else pictures.render_html(analysis)
        except RuntimeError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    else:
        output = RENDERERS[args.format](analysis)
    sys.stdout.write(output)
    return 0


def python_files(paths: list[str]) -> list[str]:
    found = []
    for path in paths:
        if os.path.isfile(path):
            found.append(path)
        for directory, subdirs, files in os.walk(path):
            subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
            found.extend(os.path.join(directory, f) for f in sorted(files) if f.endswith(".py"))
    return found


def _rows(analysis: FileAnalysis, path: str) -> list[dict]:
    rows = []
    for graph in analysis.graphs:
        cls, _, function = graph.root.rpartition(".")
        rows.append({
            "file": path, "class": cls, "root": function or graph.root, "nodes": len(graph.nodes),
            "breaks": dict(sorted(Counter(code for code, _ in graph.break_sites()).items())),
            "graphs": predicted_graphs(graph), "not_followed": graph.unknown_values(),
            "torch": analysis.torch.minor,
        })
    return rows


def _report(args: argparse.Namespace, options: Options) -> int:
    rows = []
    for path in python_files(args.paths):
        try:
            source = _read(path)
        except (OSError, UnicodeDecodeError):
            continue
        rows.extend(_rows(analyze(source, path, options=options), path))
    if args.format == "json":
        print(json.dumps(rows, indent=2))
        return 0
    header = ("file", "class", "root", "nodes", "breaks", "graphs", "not followed")
    table = [[r["file"], r["class"], r["root"], str(r["nodes"]),
              ", ".join(f"{code}×{n}" for code, n in r["breaks"].items()) or "-", str(r["graphs"]),
              str(r["not_followed"] or "-")]
             for r in rows]
    total_breaks = sum(sum(r["breaks"].values()) for r in rows)
    releases = ", ".join(sorted({r["torch"] for r in rows})) or "-"
    summary = f"{len(rows)} compile roots, {total_breaks} graph breaks, " \
              f"{sum(r['graphs'] for r in rows)} graphs predicted, for torch {releases}"
    if args.format == "markdown":
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for line in table:
            print("| " + " | ".join(cell.replace("|", "\\|") for cell in line) + " |")
        print(f"\n{summary}")
        return 0
    widths = [max(len(str(c)) for c in column) for column in zip(header, *table)]
    for line in [header, *table]:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(line, widths)).rstrip())
    print(summary)
    return 0
