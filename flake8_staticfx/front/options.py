"""What the commands share: the compile options and views every command names the same, the
FILE-and-root arguments of `graph` and `explain`, and how they read their file (sources.py)."""
from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from ..analysis import FileAnalysis, analyze
from ..config import Options, options_from
from .settings import add_analysis_arguments, analysis_values, load
from .sources import UnusableInput, read_python

VIEWS = ("instance", "lint")


def add_root_arguments(parser: argparse.ArgumentParser, formats: tuple[str, ...]) -> None:
    """FILE and the roots to show: the arguments of the commands that print one file's roots."""
    parser.add_argument("file")
    parser.add_argument("--root", help="only the root with this name (Class.forward, Class, or function)")
    parser.add_argument("--format", choices=formats, default="text")
    add_compile_options(parser)
    add_view_option(parser, "instance")


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


def analyse_roots(args: argparse.Namespace) -> FileAnalysis | None:
    """`graph` and `explain`: FILE analysed as full graphs (a generous time budget), only the
    roots `--root` asks for; None after saying on stderr why not (the exit status is 2)."""
    try:
        source = read_python(args.file)
    except UnusableInput as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None
    analysis = analyze(source, args.file, options=full_graph_options(command_options(args)))
    if args.root:
        analysis.graphs = [g for g in analysis.graphs if args.root in (g.root, g.root.split(".")[0])]
        if not analysis.graphs:
            print(f"no compile root named {args.root!r} in {args.file}", file=sys.stderr)
            return None
    return analysis

