"""`graph` and `report`: the static FX graph of each compile root, and a summary per root.

    flake8-staticfx graph FILE [--root NAME] [--format text|dot|json|svg|html]
    flake8-staticfx report DIR [DIR ...] [--format text|json|markdown]
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter

from ..analysis import FileAnalysis, analyze
from ..config import Options
from .options import (add_compile_options, add_root_arguments, add_view_option, analyse_roots, command_options,
                      full_graph_options)
from .report import RENDERERS, predicted_graphs
from .sources import UnusableInput, python_files, read_python

GRAPH_FORMATS = (*RENDERERS, "svg", "html")


def add_graph_arguments(graph: argparse.ArgumentParser) -> None:
    add_root_arguments(graph, GRAPH_FORMATS)


def add_report_arguments(report: argparse.ArgumentParser) -> None:
    report.add_argument("paths", nargs="+", metavar="DIR")
    report.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    add_compile_options(report)
    add_view_option(report, "lint")


def run_report(args: argparse.Namespace) -> int:
    return _report(args, full_graph_options(command_options(args)))


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
    """The table of every root of the readable files; each file that cannot be read or parsed is
    named on stderr, and makes the exit status 2."""
    try:
        paths = python_files(args.paths)
    except UnusableInput as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    rows, status = [], 0
    for path in paths:
        try:
            source = read_python(path)
        except UnusableInput as exc:
            print(f"error: {exc}", file=sys.stderr)
            status = 2
            continue
        rows.extend(_rows(analyze(source, path, options=options), path))
    if args.format == "json":
        print(json.dumps(rows, indent=2))
        return status
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
        return status
    widths = [max(len(str(c)) for c in column) for column in zip(header, *table)]
    for line in [header, *table]:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(line, widths)).rstrip())
    print(summary)
    return status
