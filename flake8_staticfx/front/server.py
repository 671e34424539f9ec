"""`flake8-staticfx server`: the lint as a Language Server over stdin/stdout, for any LSP client
(VS Code through a generic client extension, Neovim, Helix, Emacs, Zed; see docs/editor.md).

The server itself (lsp.py) needs pygls, an optional dependency: the linter works without it,
and this command says how to install it.
"""
from __future__ import annotations

import argparse
import sys

INSTALL = "pip install 'flake8-staticfx[server]'"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--log-file", metavar="FILE", help="write the server's log to FILE (stdout is the protocol's)")


def run(args: argparse.Namespace) -> int:
    try:
        from .lsp import serve
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in ("pygls", "lsprotocol"):
            raise
        print(f"flake8-staticfx server needs pygls: {INSTALL}", file=sys.stderr)
        return 2
    if args.log_file:
        import logging

        logging.basicConfig(filename=args.log_file, level=logging.INFO,
                            format="%(asctime)s %(threadName)s %(name)s: %(message)s")
    return serve()
