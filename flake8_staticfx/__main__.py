"""Command line: `python -m flake8_staticfx graph FILE [--root NAME] [--format text|dot|json]`."""
from __future__ import annotations

import argparse
import sys

from .analysis import analyze
from .config import Options
from .report import RENDERERS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m flake8_staticfx",
                                     description="Static FX graphs and graph breaks of PyTorch models.")
    commands = parser.add_subparsers(dest="command", required=True)
    graph = commands.add_parser("graph", help="print the static graph of each compile root in FILE")
    graph.add_argument("file")
    graph.add_argument("--root", help="only the root with this name (Class.forward, Class, or function)")
    graph.add_argument("--format", choices=sorted(RENDERERS), default="text")
    graph.add_argument("--fullgraph", action="store_true", help="as torch.compile(fullgraph=True)")
    graph.add_argument("--all-paths", action="store_true",
                       help="keep both sides of branches on constructor arguments and self.training "
                            "(the lint's view) instead of following the defaults like torch.fx")
    args = parser.parse_args(argv)

    try:
        with open(args.file, encoding="utf-8") as handle:
            source = handle.read()
    except OSError as exc:
        parser.error(str(exc))
    analysis = analyze(source, args.file, options=Options(fullgraph=args.fullgraph, reuse_inlined=False,
                                                           follow_defaults=not args.all_paths,
                                                           file_time_budget=60.0))
    if args.root:
        wanted = args.root
        analysis.graphs = [g for g in analysis.graphs
                           if wanted in (g.root, g.root.split(".")[0])]
        if not analysis.graphs:
            print(f"no compile root named {wanted!r} in {args.file}", file=sys.stderr)
            return 2
    sys.stdout.write(RENDERERS[args.format](analysis))
    return 0


if __name__ == "__main__":
    sys.exit(main())
