"""The `flake8-staticfx` command (and `python -m flake8_staticfx`): a table of subcommands.

Each command is a module with `add_arguments(parser)` and `run(args) -> exit status` (the
attribute names can be given). A command whose module is not in this installation (`explain`,
`fix` before they land) is simply not offered, so adding one is one row here.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class Command:
    name: str
    module: str
    help: str
    add_arguments: str = "add_arguments"
    run: str = "run"


COMMANDS = (
    Command("check", "flake8_staticfx.front.check", "lint files and directories (the flake8 plugin's diagnostics)"),
    Command("graph", "flake8_staticfx.front.commands", "the static graph of each compile root in FILE",
            "add_graph_arguments", "run_graph"),
    Command("report", "flake8_staticfx.front.commands", "one row per compile root of the .py files under DIR",
            "add_report_arguments", "run_report"),
    Command("explain", "flake8_staticfx.front.explain", "per root, what torch._dynamo.explain would print: "
            "graph and break counts, break reasons with user stacks, ops per graph"),
    Command("fix", "flake8_staticfx.fix", "rewrite the fixable graph breaks"),
    Command("server", "flake8_staticfx.front.server", "a Language Server over stdio: diagnostics as you type, "
            "quick fixes, rule docs on hover"),
    Command("rule", "flake8_staticfx.front.rule_docs", "a rule's documentation: what it finds, dynamo's graph-break "
            "ids, the workaround, what fix rewrites"),
)


def _load(command: Command):
    """The command's (add_arguments, run), or None when its module is not installed."""
    try:
        module = importlib.import_module(command.module)
    except ModuleNotFoundError as exc:
        if exc.name == command.module:
            return None
        raise
    add, run = getattr(module, command.add_arguments, None), getattr(module, command.run, None)
    if add is None or run is None:
        return None
    return add, run


class VersionAction(argparse.Action):
    """`--version`: the linter's version, and the torch release its answers are for here (worked
    out only when asked: it looks for the installed torch and the project's pins)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs):
        super().__init__(option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, nargs=0, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        from .. import __version__
        from ..analysis import torch_for
        from ..config import Options
        from ..torch_versions import MODELED

        torch = torch_for(os.path.join(os.getcwd(), "-"), Options())
        print(f"{parser.prog} {__version__}: answers for {torch.describe()}; models torch {', '.join(MODELED)}")
        parser.exit()


def build_parser(prog: str = "flake8-staticfx") -> argparse.ArgumentParser:
    description = "Find where torch.compile breaks a PyTorch model's graph, statically."
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--version", action=VersionAction, help="the linter's version and the torch release "
                        "it answers for in the current directory")
    commands = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        loaded = _load(command)
        if loaded is None:
            continue
        add, run = loaded
        sub = commands.add_parser(command.name, help=command.help, description=command.help)
        add(sub)
        sub.set_defaults(_run=run)
    return parser


def main(argv: list[str] | None = None, prog: str = "flake8-staticfx") -> int:
    args = build_parser(prog).parse_args(argv)
    return args._run(args)


def run(prog: str = "flake8-staticfx") -> int:
    """main(), quiet when the reader of a pipe goes away (`... report DIR | head`)."""
    try:
        return main(prog=prog)
    except BrokenPipeError:
        sys.stderr.close()  # nothing more can be written; Python must not complain at exit
        return 0
    except KeyboardInterrupt:
        return 130


def console_script() -> None:
    """The `flake8-staticfx` entry point."""
    sys.exit(run())
