#!/usr/bin/env python
"""Record how often torch.compile (dynamo) compiles each frame over a call sequence: the
recompile oracle.

Usage (from the repository root, with torch 2.13.0 installed):

    python tests/oracle/record_recompiles.py tests/recompile_cases/tuned     # -> DIR/truth.json
    python tests/oracle/record_recompiles.py DIR foo.py bar.py   # re-record these files (merged)
    python tests/oracle/record_recompiles.py --show DIR/foo.py   # print one file's truth
    python tests/oracle/record_recompiles.py --check DIR         # exit 1 if the truth differs
    /path/to/torch-2.14/bin/python tests/oracle/record_recompiles.py DIR -o out.json  # another torch

A case file declares ``RECOMPILE_CASES = [(name, run), ...]``. ``run()`` is the driver a project
would write: it builds the model, compiles it the way the project does (``torch.compile(model,
dynamic=False)``, ``block.compile()`` for each block, ``@torch.compile`` on a function) and calls
it in sequence (a training loop calling ``model(x, step)``, a sampler calling a denoiser with a
changing ``t``). The linter reads the same source: the compile calls and the loops are its call
sequence, so the oracle and the analysis see one description.

A script whose driver is its own top-level code (a tutorial training at module level, under
``if __name__ == "__main__":`` or not) declares ``RECOMPILE_CASES = [("<module>", None)]``
(MODULE_CASE): that case runs the file as ``__main__`` (``runpy.run_path``, ``sys.argv`` the
file alone: its options at their defaults) instead of importing it and calling a function, and
is recorded as a function driver is. The module body being one
driver, such a file has no other case.

Each case runs in a fresh interpreter (dynamo's caches are process-wide). ``torch.compile`` is
replaced by one that forces ``backend="eager"`` (the guards and recompiles are dynamo's, not the
backend's) and counts the calls of each compiled callable. Three of dynamo's log records are
collected, tagged with the compile id (``frame/compile``) they were logged under:

- ``torchdynamo start tracing FN FILE:LINE``: one compile of a frame (logged again, under the
  same compile id with an attempt suffix, each time dynamo restarts the analysis, e.g. to
  compile the graph before a break: those are not counted);
- the ``recompiles`` artifact: the guard failures that caused a recompile, the newest with the
  source line dynamo installed its guard for (the ``# code  # file:line in fn`` comment, or, for a
  guard installed inside torch, the innermost case-file frame of the user stack trace);
- ``hit config.recompile_limit``: the frame runs eagerly from then on.

The truth of a case: ``calls`` (calls of compiled callables), ``frames`` (per frame: compiles and
whether the limit sent it to eager), ``recompiles`` (per recompile: frame, compile id, the call
it happened in, the newest failing guard and its line) and ``lines`` (the case file's lines whose
guards caused a recompile). Paths are relative to the cases directory; the output is sorted and
depends neither on the machine nor on the time.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

MAX_JOBS = 2
MODULE_CASE = "<module>"  # the case whose driver is the file's top-level code, run as __main__
CASE_TIMEOUT = 600

_START = re.compile(r"torchdynamo start tracing (?P<function>\S+) (?P<path>.+):(?P<line>\d+)$")
_RECOMPILING = re.compile(r"^Recompiling function (?P<function>\S+) in (?P<path>.+):(?P<line>\d+)$")
_FAILURE = re.compile(r"^\s*- (?P<entry>\d+/\d+): (?P<guard>.*)$")
# The guard's comment: `# source text  # path-suffix:line in function`
_GUARD_SITE = re.compile(r"#.*#\s*(?P<path>\S+):(?P<line>\d+) in (?P<function>\w+)")
_USER_FRAME = re.compile(r'^\s*-\s+File "(?P<path>.+)", line (?P<line>\d+), in ')
# An object's address in a guard (`___check_type_id(x, 9397...)`) differs from run to run.
_OBJECT_ID = re.compile(r"(___check_(?:type|obj)_id\([^,]+, )\d+\)")
# dynamo's trace id `frame/compile_attempt`: an attempt after the first restarts the analysis.
_RESTART = re.compile(r"_\d+$")
_LIMIT = re.compile(r"hit config\.(recompile_limit|cache_size_limit)")
_LIMIT_FUNCTION = re.compile(r"function: '(?P<function>[^']+)' \((?P<path>.+):(?P<line>\d+)\)")


def case_names(path: str) -> list[str] | None:
    """The names of a file's RECOMPILE_CASES, read from its source (None: no such list)."""
    try:
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read(), path)
    except (OSError, SyntaxError):
        return None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "RECOMPILE_CASES" for t in node.targets):
            if not isinstance(node.value, (ast.List, ast.Tuple)):
                return None
            return [item.elts[0].value for item in node.value.elts
                    if isinstance(item, ast.Tuple) and isinstance(item.elts[0], ast.Constant)]
    return None


def case_files(cases_dir: str) -> list[str]:
    return sorted(name for name in os.listdir(cases_dir)
                  if name.endswith(".py") and case_names(os.path.join(cases_dir, name)))


# ---------------------------------------------------------------------------------------------
# Worker side: one case in a fresh interpreter


class _Recorder:
    """Collects dynamo's compile, recompile and limit records, and the calls of compiled callables."""

    def __init__(self, cases_dir: str):
        self.cases_dir = os.path.realpath(cases_dir)
        self.calls = 0
        self.starts: list[dict] = []
        self.recompiles: list[dict] = []
        self.limits: list[dict] = []

    def relative(self, path: str) -> str | None:
        if not os.path.isabs(path):
            return None
        real = os.path.realpath(path)
        return os.path.relpath(real, self.cases_dir).replace(os.sep, "/") \
            if real.startswith(self.cases_dir + os.sep) else None

    def suffix_in_cases(self, suffix: str) -> str | None:
        """dynamo shortens the guard comment's path from the left: find the case file it ends."""
        for root, _, files in os.walk(self.cases_dir):
            for name in files:
                full = os.path.join(root, name)
                if full.endswith(suffix):
                    return self.relative(full)
        return None

    def frame(self, function: str, path: str, line: str) -> str:
        where = self.relative(path) or "<outside>/" + os.path.basename(path)
        return f"{function} {where}:{line}"

    def record(self, message: str, compile_id: str) -> None:
        first, *rest = message.split("\n")
        start = _START.search(first)
        if start and _RESTART.search(compile_id):
            return  # the same compile traced again after a graph break or a speculation: not a compile
        if start:
            self.starts.append({"frame": self.frame(start["function"], start["path"], start["line"]),
                                "compile_id": compile_id, "call": self.calls})
            return
        recompiling = _RECOMPILING.match(first)
        if recompiling:
            failures = [m for m in map(_FAILURE.match, rest) if m and not m["guard"].startswith("User stack")
                        and not m["guard"].startswith(" ")]
            newest = max(failures, key=lambda m: tuple(map(int, m["entry"].split("/"))), default=None)
            guard, file, line = None, None, None
            if newest:
                text = newest["guard"]
                guard = _OBJECT_ID.sub(r"\1<id>)", text.split("#")[0].strip())
                site = _GUARD_SITE.search(text)
                if site:
                    file = self.suffix_in_cases(site["path"])
                    line = int(site["line"]) if file else None
                if site and file is None:  # installed inside torch: the user stack says where from
                    user = [(self.relative(m["path"]), int(m["line"])) for m in map(_USER_FRAME.match, rest) if m]
                    file, line = next(((f, n) for f, n in reversed(user) if f), (None, None))
            self.recompiles.append({
                "frame": self.frame(recompiling["function"], recompiling["path"], recompiling["line"]),
                "compile_id": compile_id, "call": self.calls, "guard": guard, "file": file, "line": line})
            return
        if _LIMIT.search(first):
            function = _LIMIT_FUNCTION.search(message)
            if function:
                self.limits.append({"frame": self.frame(function["function"], function["path"], function["line"]),
                                    "call": self.calls})

    def truth(self) -> dict:
        frames: dict[str, dict] = {}
        for start in self.starts:
            frames.setdefault(start["frame"], {"compiles": 0, "eager_after_limit": False})["compiles"] += 1
        for limit in self.limits:
            frames.setdefault(limit["frame"], {"compiles": 0, "eager_after_limit": False})["eager_after_limit"] = True
        lines = sorted({(r["file"], r["line"]) for r in self.recompiles if r["line"] is not None})
        return {"calls": self.calls,
                "compiles": len(self.starts),
                "frames": dict(sorted(frames.items())),
                "recompiles": self.recompiles,
                "lines": [f"{file}:{line}" for file, line in lines]}


def _install(recorder: _Recorder) -> None:
    """Route dynamo's records to the recorder; make torch.compile use the eager backend and
    count the calls of what it returns."""
    import logging

    import torch
    from torch._guards import CompileContext

    class Handler(logging.Handler):
        def emit(self, record):
            recorder.record(record.getMessage(), str(CompileContext.current_trace_id()))

    torch._logging.set_logs(recompiles=True, dynamo=logging.INFO)
    handler = Handler(logging.DEBUG)
    logging.getLogger("torch._dynamo").addHandler(handler)
    for name in ("torch", "torch._dynamo"):  # keep the worker's stderr for real errors
        for other in logging.getLogger(name).handlers:
            if other is not handler:
                other.setLevel(logging.CRITICAL)

    real_compile = torch.compile

    def counting_compile(model=None, **kwargs):
        if model is None:  # @torch.compile(dynamic=True)
            return lambda function: counting_compile(function, **kwargs)
        kwargs["backend"] = "eager"
        compiled = real_compile(model, **kwargs)
        if isinstance(compiled, torch.nn.Module):
            compiled.register_forward_pre_hook(lambda module, args: _count(recorder))
            return compiled

        def call(*args, **kw):
            _count(recorder)
            return compiled(*args, **kw)
        call.__wrapped__ = compiled
        return call

    torch.compile = counting_compile


def _count(recorder: _Recorder) -> None:
    """A call from the driver. A compiled function called inside another compiled frame
    (minRF's `@torch.compile()` block forwards) is traced into, counter included: counted there,
    dynamo would guard on the count and recompile at every call, which torch's own wrapper never
    makes it do; `is_compiling()` is a constant while tracing, so nothing is guarded."""
    import torch
    if not torch.compiler.is_compiling():
        recorder.calls += 1


def run_case(cases_dir: str, file_name: str, case: str) -> dict:
    import random
    import runpy

    import torch
    recorder = _Recorder(cases_dir)
    _install(recorder)
    random.seed(0)
    torch.manual_seed(0)
    path = os.path.join(cases_dir, file_name)
    if case == MODULE_CASE:
        def run():
            sys.argv = [path]  # the script's own command line, no options: argparse's defaults
            runpy.run_path(path, run_name="__main__")  # sys.modules["__main__"] is the script while it runs
    else:
        run = _driver(path, file_name, case)
    try:
        run()
    except Exception as error:  # noqa: BLE001 - a case that fails is recorded, not hidden
        result = recorder.truth()
        result["error"] = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
        return result
    return recorder.truth()


def _driver(path: str, file_name: str, case: str):
    """The case's driver function, its file imported."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"recompile_case_{file_name[:-3]}", path)
    module = importlib.util.module_from_spec(spec)
    # Registered as an import would be: dynamo looks a traced function's module up by name
    # (an @torch.inference_mode() method fails without it, which no project would see).
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return dict((name, driver) for name, driver in module.RECOMPILE_CASES)[case]


# ---------------------------------------------------------------------------------------------
# Driver side


def record_file(cases_dir: str, file_name: str, python: str) -> dict[str, dict]:
    results = {}
    for case in case_names(os.path.join(cases_dir, file_name)) or []:
        process = subprocess.run([python, os.path.abspath(__file__), "--worker", cases_dir, file_name, case],
                                 capture_output=True, text=True, timeout=CASE_TIMEOUT)
        if process.returncode != 0:
            results[case] = {"error": f"worker exited {process.returncode}: {process.stderr.strip()[-300:]}"}
        else:
            results[case] = json.loads(process.stdout.strip().splitlines()[-1])
    return results


def record(cases_dir: str, files: list[str], python: str) -> dict[str, dict]:
    with ThreadPoolExecutor(MAX_JOBS) as pool:
        recorded = pool.map(lambda name: (name, record_file(cases_dir, name, python)), files)
        return {name: cases for name, cases in recorded}


def dump(truth: dict) -> str:
    return json.dumps({name: truth[name] for name in sorted(truth)}, indent=1, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worker", nargs=3, metavar=("DIR", "FILE", "CASE"), help=argparse.SUPPRESS)
    parser.add_argument("--show", metavar="FILE", help="print one case file's truth, write nothing")
    parser.add_argument("--check", action="store_true", help="re-record; exit 1 if truth.json differs")
    parser.add_argument("-o", "--output", help="write the truth here instead of DIR/truth.json")
    parser.add_argument("cases_dir", nargs="?")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(run_case(*args.worker), sort_keys=True))
        return 0
    if args.show:
        cases_dir, name = os.path.split(os.path.abspath(args.show))
        print(dump({name: record_file(cases_dir, name, sys.executable)}), end="")
        return 0
    cases_dir = os.path.abspath(args.cases_dir)
    truth_path = args.output or os.path.join(cases_dir, "truth.json")
    old: dict = {}
    if os.path.exists(truth_path):
        with open(truth_path, encoding="utf-8") as handle:
            old = json.load(handle)
    files = args.files or case_files(cases_dir)
    new = record(cases_dir, [os.path.basename(f) for f in files], sys.executable)
    merged = {**old, **new} if args.files else new
    if args.check:
        same = dump(merged) == dump(old)
        print("truth is current" if same else "truth differs: re-record")
        return 0 if same else 1
    with open(truth_path, "w", encoding="utf-8") as handle:
        handle.write(dump(merged))
    print(f"{truth_path}: {sum(len(c) for c in merged.values())} cases in {len(merged)} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
