#!/usr/bin/env python
"""How long `flake8-staticfx server` takes to publish diagnostics after an edit, once warm.

    python benchmarks/server_latency.py [--file PATH] [--changes N] [--json OUT]

Drives the server as an editor does (tests/lsp_client.py: JSON-RPC over stdio, with the
interpreter running this script): opens FILE (by default a 493-line model file assembled in a
temporary directory from five files of tests/cases: timm-style layers, a Swin block, T5
relative attention, gated residuals, an output dataclass; 8 diagnostics), then
- `single`: N edits, each after a quiet moment (a comment added to or removed from a line of a
  forward), the time from sending didChange to receiving that version's diagnostics;
- `burst`: N bursts of five edits 30 ms apart (typing), the time from the last edit of the
  burst to that version's diagnostics (the server lints a burst once, DEBOUNCE after its end);
- `first`: the first diagnostics after didOpen (a fresh process: imports, parsing, caches);
- `code action`: the first and the next codeAction request on the first diagnostic's line
  (the first plans fix's rewrites, unless the server planned them while idle).
Wall-clock milliseconds: median, 90th percentile and maximum. The target is a median
`single` latency within 300 ms.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(os.path.dirname(HERE), "tests")
sys.path.insert(0, TESTS)

from lsp_client import Client  # noqa: E402

CASE_FILES = ("vis_layers", "vis_swin_window", "nlp_t5_relative_bias", "early_exit_gates", "model_output_index")
QUIET = 0.4  # seconds between edits of the `single` runs: more than the server's DEBOUNCE
BURST = 5
BURST_GAP = 0.03


def assemble(directory: str) -> str:
    """One model file of the case files' definitions (their docstrings, imports between them and
    CASES lists left out), the imports gathered at the top; its path."""
    imports, bodies = set(), []
    for name in CASE_FILES:
        with open(os.path.join(TESTS, "cases", f"{name}.py"), encoding="utf-8") as handle:
            source = handle.read().split("\nCASES = [")[0]
        source = re.sub(r'^""".*?"""\n', "", source, flags=re.S)
        body = []
        for line in source.splitlines():
            if re.match(r"(import|from) ", line):
                if not line.startswith("from ."):
                    imports.add(line)
            else:
                body.append(line)
        bodies.append("\n".join(body).strip("\n") + "\n")
    future = sorted(line for line in imports if "__future__" in line)
    path = os.path.join(directory, "server_model.py")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("\n".join([*future, *sorted(imports - set(future))]) + "\n\n\n" + "\n\n".join(bodies))
    return path


def summary(times: list[float]) -> dict:
    ordered = sorted(times)
    return {"n": len(ordered), "median_ms": round(statistics.median(ordered) * 1000),
            "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))] * 1000), "max_ms": round(ordered[-1] * 1000)}


def comment_edit(line: int, column: int, on: bool) -> dict:
    """Add `  # x` at (line, column), or take it away again."""
    start = {"line": line, "character": column}
    if on:
        return {"range": {"start": start, "end": start}, "text": "  # x"}
    return {"range": {"start": start, "end": {"line": line, "character": column + 5}}, "text": ""}


def edit_place(text: str) -> tuple[int, int]:
    """The end of the last `return` line of a forward: an edit inside a compile root."""
    lines = text.splitlines()
    in_forward, place = False, None
    for number, line in enumerate(lines):
        if line.strip().startswith("def "):
            in_forward = line.strip().startswith("def forward(")
        elif in_forward and line.strip().startswith("return "):
            place = (number, len(line))
    if place is None:
        raise SystemExit("the file has no forward with a return statement to edit")
    return place


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--file", help="the file to edit (default: the assembled model file)")
    parser.add_argument("--changes", type=int, default=20)
    parser.add_argument("--json", metavar="OUT")
    args = parser.parse_args(argv)
    path = os.path.abspath(args.file) if args.file else assemble(tempfile.mkdtemp(prefix="staticfx-server-"))
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    line, column = edit_place(text)
    client = Client(cwd=os.path.dirname(path))
    results: dict = {"file": args.file or "assembled from tests/cases", "lines": text.count("\n")}
    try:
        client.initialize(os.path.dirname(path))
        started = time.monotonic()
        uri = client.open(path, text)
        shown = client.diagnostics(uri, 1, timeout=120)
        results["first_ms"] = round((time.monotonic() - started) * 1000)
        results["diagnostics"] = len(shown)

        single, on = [], True
        for _ in range(args.changes):
            time.sleep(QUIET)
            started = time.monotonic()
            version = client.change(uri, [comment_edit(line, column, on)])
            client.diagnostics(uri, version)
            single.append(time.monotonic() - started)
            on = not on
        results["single"] = summary(single)

        burst = []
        for _ in range(args.changes):
            time.sleep(QUIET)
            for _ in range(BURST):
                version = client.change(uri, [comment_edit(line, column, on)])
                on = not on
                time.sleep(BURST_GAP)
            started = time.monotonic() - BURST_GAP
            client.diagnostics(uri, version)
            burst.append(time.monotonic() - started)
        results["burst"] = summary(burst)

        if shown:
            request = {"textDocument": {"uri": uri}, "range": shown[0]["range"], "context": {"diagnostics": shown}}
            if not on:  # back to the text the diagnostics were published for
                version = client.change(uri, [comment_edit(line, column, on)])
                client.diagnostics(uri, version)
            actions = []
            for _ in range(2):
                started = time.monotonic()
                client.request("textDocument/codeAction", request, timeout=300)
                actions.append(round((time.monotonic() - started) * 1000))
            results["code_action_ms"] = actions
        results["exit_status"] = client.close()
    finally:
        client.kill()
    results["load_average"] = [round(load, 2) for load in os.getloadavg()]
    print(json.dumps(results, indent=1))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(results, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
