#!/usr/bin/env python
"""Record where torch.compile (dynamo) graph-breaks on the case corpus: the project's oracle.

Usage (from the repository root, with torch 2.13.0 installed):

    python tests/oracle/record_truth.py                 # record every case -> tests/cases/truth.json
    python tests/oracle/record_truth.py foo.py bar.py   # re-record only these files (merged into truth)
    python tests/oracle/record_truth.py --show foo.py   # print one file's truth, write nothing
    python tests/oracle/record_truth.py --check         # re-record all; exit 1 if it differs from the file
    python tests/oracle/record_truth.py --config capture_scalar_outputs=True --fullgraph -o out.json
    python tests/oracle/record_truth.py --config "ignore_logger_methods={logging.Logger.info}" -o out.json

A case file is a module of the cases package with a top-level
``CASES = [(name, make_model, make_inputs), ...]``. ``make_model()`` returns an ``nn.Module`` or
a plain callable (a ``@torch.compile``-decorated function or a ``torch.compile``d module is
unwrapped and compiled again with the eager backend, keeping its own ``fullgraph=True``);
``make_inputs()`` returns the tuple of positional inputs.

Every case runs in its own process (dynamo's caches are process-wide), forked from a server
that has imported torch and nothing more (`CaseServer`):

1. eager: a forked child runs ``make_model()(*make_inputs())`` under ``sys.settrace`` and
   records which lines of the files of the cases directory ran (the fork keeps whatever the
   eager run mutates out of step 2); ``torch.compiler.set_stance("force_eager")`` keeps nested
   ``torch.compile`` calls eager;
2. compiled: ``torch._dynamo.reset()``, then ``torch.compile(model, backend="eager")(*inputs)``
   with the default dynamo configuration (or ``--config``/``--fullgraph``), collecting every
   graph-break record that the ``graph_breaks`` logging artifact sends to the ``torch._dynamo``
   logger.

For each break the truth holds the innermost frame inside the cases directory (``file``,
``line``), the user stack restricted to the cases directory, the reason title, its GB id
(from the docs URL in the message, else by the title in ``graph_break_registry.json``) and
whether dynamo gave up on the whole frame. Paths are relative to the cases directory, the
output is sorted, and nothing in it depends on the machine or the time.
"""
from __future__ import annotations

import argparse
import ast
import difflib
import json
import os
import queue
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CASES = os.path.normpath(os.path.join(HERE, "..", "cases"))
MAX_JOBS = 2
FORMAT_VERSION = 1

# ---------------------------------------------------------------------------------------------
# Small helpers shared by both sides


def case_files(cases_dir: str) -> list[str]:
    """Names of the files in `cases_dir` that define a top-level CASES list, sorted."""
    names = []
    for name in sorted(os.listdir(cases_dir)):
        if name.endswith(".py") and number_of_cases(os.path.join(cases_dir, name)) is not None:
            names.append(name)
    return names


def number_of_cases(path: str) -> int | None:
    """len(CASES) read from the source without importing it; None when there is no CASES."""
    try:
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read(), path)
    except (OSError, SyntaxError):
        return None
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) else [])
        if any(isinstance(t, ast.Name) and t.id == "CASES" for t in targets):
            value = node.value
            if isinstance(value, (ast.List, ast.Tuple)):
                return len(value.elts)
            return -1  # computed: the worker reports the real length
    return None


def compress_lines(lines) -> str:
    """[1, 2, 3, 7, 9, 10] -> "1-3,7,9-10" (keeps the truth file short and diffable)."""
    out, run = [], []
    for line in sorted(set(lines)):
        if run and line == run[-1] + 1:
            run.append(line)
            continue
        if run:
            out.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
        run = [line]
    if run:
        out.append(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}")
    return ",".join(out)


def expand_lines(text: str) -> set[int]:
    """Inverse of compress_lines."""
    lines: set[int] = set()
    for part in filter(None, text.split(",")):
        first, _, last = part.partition("-")
        lines.update(range(int(first), int(last or first) + 1))
    return lines


def package_of(cases_dir: str) -> tuple[str, str]:
    """(sys.path entry, dotted package name) of the cases directory, found by __init__.py files."""
    directory = os.path.abspath(cases_dir)
    parts: list[str] = []
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        directory, name = os.path.split(directory)
        parts.insert(0, name)
    return directory, ".".join(parts)


def parse_config_value(text: str):
    """A Python literal, else the text itself (resolved in the worker by `config_object`)."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def config_object(value):
    """A config value written as a set of dotted names, such as ``{logging.Logger.info}``
    for ``ignore_logger_methods``, becomes the set of those objects; anything else is kept."""
    if not isinstance(value, str):
        return value
    try:
        expr = ast.parse(value, mode="eval").body
    except SyntaxError:
        return value
    if not isinstance(expr, ast.Set):
        return value
    return {_object_named(ast.unparse(item)) for item in expr.elts}


def _object_named(dotted: str):
    """The object a dotted name denotes: the longest importable module prefix, then attributes."""
    import importlib
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            target = getattr(target, name)
        return target
    raise ValueError(f"cannot resolve {dotted!r}")


# ---------------------------------------------------------------------------------------------
# Worker side: one case, in a fresh interpreter

_FRAME = re.compile(r'^\s*File "(?P<path>.+?)", line (?P<line>\d+), in (?P<func>.+?)\s*$')
_FIRST_LINE = re.compile(
    r"^Graph break(?P<dup> \(user stack suppressed due to duplicate graph break\))? in user code at "
    r"(?P<path>.+):(?P<line>\d+)$")
_GB_URL = re.compile(r"/gb/(gb\d{4})\.html", re.I)
_PREAMBLES = (
    re.compile(r"^Encountered graph break when attempting to trace .*:$"),
    re.compile(r"^Failed to handle graph break gracefully\..*$"),
    re.compile(r"^Encountered graph break that we cannot resume from\..*$"),
)
_SKIP_WORDS = ("Skipping the function and falling back to eager", "Skipping the frame",
               "cannot properly resume", "cannot resume from", "skipping the rest of the function")


class _Locator:
    """Maps absolute paths to names relative to the cases directory (or library origins)."""

    def __init__(self, cases_dir: str):
        self.cases_dir = os.path.realpath(cases_dir)
        import sysconfig

        import torch
        self.torch_dir = os.path.realpath(os.path.dirname(torch.__file__))
        self.stdlib = os.path.realpath(sysconfig.get_paths()["stdlib"])
        self._cache: dict[str, str | None] = {}

    def case_name(self, path: str) -> str | None:
        """The path relative to the cases directory, or None for a file outside it."""
        if path not in self._cache:
            if not os.path.isabs(path):  # "<frozen abc>", "<string>": realpath would join the cwd
                self._cache[path] = None
                return None
            real = os.path.realpath(path)
            inside = os.path.dirname(real) == self.cases_dir or real.startswith(self.cases_dir + os.sep)
            self._cache[path] = os.path.relpath(real, self.cases_dir).replace(os.sep, "/") if inside else None
        return self._cache[path]

    def origin(self, path: str) -> str:
        """A machine-independent name for any file: case-relative, <torch>/..., <stdlib>/..."""
        name = self.case_name(path)
        if name is not None:
            return name
        real = os.path.realpath(path)
        for prefix, label in ((self.torch_dir, "<torch>"), (self.stdlib, "<stdlib>")):
            if real.startswith(prefix + os.sep):
                return label + "/" + os.path.relpath(real, prefix).replace(os.sep, "/")
        return "<other>/" + os.path.basename(real)


def _registry_by_title() -> dict[str, str]:
    import torch._dynamo
    path = os.path.join(os.path.dirname(torch._dynamo.__file__), "graph_break_registry.json")
    by_title: dict[str, str] = {}
    try:
        with open(path, encoding="utf-8") as handle:
            registry = json.load(handle)
    except (OSError, ValueError):
        return by_title
    for gb_id in sorted(registry):
        for entry in registry[gb_id]:
            by_title.setdefault(entry.get("Gb_type", ""), gb_id)
    return by_title


def _title_of(reason_lines: list[str]) -> str:
    """The first line of a reason that is neither blank nor one of dynamo's preambles."""
    for text in reason_lines:
        text = text.strip()
        if not text or any(p.match(text) for p in _PREAMBLES):
            continue
        return text
    return ""


def _user_frames(lines: list[str]) -> list[tuple[str, int, str]]:
    """Frames of the 'User code traceback:' section (or of a plain formatted stack)."""
    try:
        start = next(i for i, text in enumerate(lines) if text.strip() == "User code traceback:")
    except StopIteration:
        start = 0
    frames = []
    for text in lines[start:]:
        match = _FRAME.match(text)
        if match:
            frames.append((match["path"], int(match["line"]), match["func"]))
    return frames


def parse_record(message: str, exc, locator: _Locator, registry: dict[str, str]) -> dict | None:
    """One graph-break log record -> a break entry, or None for an unrelated record."""
    lines = message.split("\n")
    first = _FIRST_LINE.match(lines[0])
    if first:
        reason = "\n".join(lines[1:])
        reason_lines = lines[1:]
        if reason_lines and reason_lines[0].startswith("Graph Break Reason:"):
            reason_lines = [reason_lines[0][len("Graph Break Reason:"):]] + reason_lines[1:]
        title = _title_of(reason_lines)
        frames = _user_frames(lines)
        if not frames:  # duplicate records carry only the location
            frames = [(first["path"], int(first["line"]), "?")]
        kind = "duplicate" if first["dup"] else "break"
        skipped = any(word in reason for word in _SKIP_WORDS)
        url = _GB_URL.search(reason)
    elif lines[0].startswith("Graph break: torch.compile cannot properly resume"):
        frames = _user_frames(lines)
        title = getattr(exc, "gb_type", None) or ""
        text = str(exc) if exc is not None else ""
        if not title:
            title = _title_of(text.split("\n")) if text else ""
        kind = "skip_frame"
        skipped = True
        url = _GB_URL.search(text)
    else:
        return None
    inside = [(locator.case_name(p), line, func) for p, line, func in frames if locator.case_name(p)]
    if kind == "duplicate" and not inside:
        # A repeat of an earlier break, logged from a frame outside the cases (e.g. copy.py
        # traced as its own frame after the first break): it adds nothing about user code.
        return None
    innermost = frames[-1] if frames else None
    gb_from_title = registry.get(title)
    return {
        "file": inside[-1][0] if inside else None,
        "line": inside[-1][1] if inside else None,
        "stack": [[name, line, func] for name, line, func in inside],
        "origin": locator.origin(innermost[0]) if innermost else None,
        "title": title,
        "gb": url.group(1).upper() if url else gb_from_title,
        "gb_from_title": gb_from_title,
        "frame_skipped": skipped,
        "kind": kind,
    }


def _import_case(cases_dir: str, file_name: str):
    import importlib
    root, package = package_of(cases_dir)
    stem = file_name[:-3]
    if package:
        if root not in sys.path:
            sys.path.insert(0, root)
        return importlib.import_module(f"{package}.{stem}")
    if cases_dir not in sys.path:
        sys.path.insert(0, cases_dir)
    return importlib.import_module(stem)


def _seed_everything():
    import random

    import torch
    random.seed(0)
    torch.manual_seed(0)
    try:
        import numpy
        numpy.random.seed(0)
    except ImportError:
        pass


def _unwrap_compiled(target):
    """A function that torch.compile already wrapped -> the original (so we pick the backend)."""
    seen = 0
    while hasattr(target, "_torchdynamo_orig_callable") and seen < 8:
        target = target._torchdynamo_orig_callable
        seen += 1
    return target


def _own_fullgraph(target) -> bool:
    """Did the case itself compile `target` with fullgraph=True (`@torch.compile(fullgraph=True)`,
    `model = torch.compile(Model(), fullgraph=True)`)? Read from the OptimizeContext torch.compile
    wrapped it with: an OptimizedModule's `dynamo_ctx`, a decorated function's closure."""
    from torch._dynamo.eval_frame import OptimizeContext
    contexts = [getattr(target, "dynamo_ctx", None)]
    for cell in getattr(target, "__closure__", None) or ():
        try:
            contexts.append(cell.cell_contents)
        except ValueError:  # an empty cell
            continue
    return any(isinstance(context, OptimizeContext) and context.fullgraph for context in contexts)


def in_child(run, fallback):
    """`run()` in a forked child, its JSON-able result sent back through a pipe (`fallback` when
    the child died): whatever the case does to the process stays out of the next step."""
    read_fd, write_fd = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # child
        os.close(read_fd)
        try:
            result = run()
            with os.fdopen(write_fd, "w") as out:
                json.dump(result, out)
        finally:
            os._exit(0)
    os.close(write_fd)
    with os.fdopen(read_fd) as pipe:
        text = pipe.read()
    os.waitpid(pid, 0)
    try:
        return json.loads(text)
    except ValueError:
        return fallback


def _eager_lines(cases_dir: str, make_model, make_inputs, locator: _Locator) -> dict:
    """In a forked child: run the case eagerly, tracing lines of the cases directory."""
    import torch

    def run() -> dict:
        result = {"executed": {}, "eager_error": None}
        executed: dict[str, set[int]] = {}
        code_file: dict[object, str | None] = {}

        def local(frame, event, arg):
            if event == "line":
                executed[code_file[frame.f_code]].add(frame.f_lineno)
            return local

        def tracer(frame, event, arg):
            code = frame.f_code
            if code not in code_file:
                code_file[code] = locator.case_name(code.co_filename)
                if code_file[code] is not None:
                    executed.setdefault(code_file[code], set())
            return local if code_file[code] is not None else None

        try:
            _seed_everything()
            model = make_model()
            inputs = make_inputs()
            target = _unwrap_compiled(model)
            with torch.compiler.set_stance("force_eager"):
                sys.settrace(tracer)
                try:
                    target(*inputs)
                finally:
                    sys.settrace(None)
        except BaseException as exc:  # noqa: BLE001 - reported, the truth says the case is broken
            result["eager_error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300]
        result["executed"] = {name: compress_lines(lines) for name, lines in sorted(executed.items()) if lines}
        return result

    return in_child(run, {"executed": {}, "eager_error": "eager run died"})


def log_every_graph_break(torch) -> None:
    """Turn on the `graph_breaks` log, every break with its stack: dynamo logs a repeat of (break
    kind, innermost location) without one, and that location is often inside torch, so a second
    case line breaking in the same torch function would be lost (tests/model_heldout/pointnet.py:82).
    Called in the compiling child only."""
    torch._logging.set_logs(graph_breaks=True)
    torch._dynamo.utils.graph_break_dup_warning_checker.add = lambda key: True


def worker(cases_dir: str, file_name: str, index: int, config: dict, fullgraph: bool) -> dict:
    import logging
    import traceback

    import torch
    import torch._dynamo

    torch.set_num_threads(1)
    locator = _Locator(cases_dir)
    registry = _registry_by_title()
    module = _import_case(cases_dir, file_name)
    name, make_model, make_inputs = module.CASES[index]
    result: dict = {"name": name, "index": index}
    result.update(_eager_lines(cases_dir, make_model, make_inputs, locator))

    records = []

    class Collect(logging.Handler):
        def emit(self, record):
            try:
                exc = record.exc_info[1] if record.exc_info else None
                records.append((record.getMessage(), exc))
            except Exception:  # noqa: BLE001 - a log handler must not raise
                pass

    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    for key, value in config.items():
        setattr(torch._dynamo.config, key, config_object(value))
    log_every_graph_break(torch)
    handler = Collect(level=logging.DEBUG)
    dynamo_logger = logging.getLogger("torch._dynamo")
    dynamo_logger.addHandler(handler)
    result["compile_error"] = None
    try:
        _seed_everything()
        model = make_model()
        inputs = make_inputs()
        compiled = torch.compile(_unwrap_compiled(model), backend="eager",
                                 fullgraph=fullgraph or _own_fullgraph(model))
        compiled(*inputs)
    except BaseException as exc:  # noqa: BLE001 - under fullgraph a break is an exception
        gb_type = getattr(exc, "gb_type", None)
        result["compile_error"] = f"{type(exc).__name__}" + (f": {gb_type}" if gb_type else "")
        user_frames = list(getattr(exc, "real_stack", None) or []) or traceback.extract_tb(exc.__traceback__)
        inside = [[locator.case_name(f.filename), f.lineno, f.name]
                  for f in user_frames if locator.case_name(f.filename)]
        if gb_type and inside:  # fullgraph=True: the first break is raised, not logged
            url = _GB_URL.search(str(exc))
            records_error = {
                "file": inside[-1][0], "line": inside[-1][1], "stack": inside,
                "origin": locator.origin(user_frames[-1].filename), "title": gb_type,
                "gb": url.group(1).upper() if url else registry.get(gb_type),
                "gb_from_title": registry.get(gb_type), "frame_skipped": False, "kind": "error"}
        else:
            records_error = None
    else:
        records_error = None
    finally:
        dynamo_logger.removeHandler(handler)

    breaks = [b for b in (parse_record(msg, exc, locator, registry) for msg, exc in records) if b]
    if records_error is not None:
        breaks.append(records_error)
    result["breaks"] = merge_breaks(breaks)
    counters = torch._dynamo.utils.counters
    result["graphs"] = int(counters["stats"].get("unique_graphs", 0))
    result["dynamo_break_count"] = int(sum(counters["graph_break"].values()))
    return result


def merge_breaks(breaks: list[dict]) -> list[dict]:
    """One entry per (file, line, title, stack); sorted; duplicates folded into `count`."""
    merged: dict[tuple, dict] = {}
    for brk in breaks:
        key = (brk["file"] or "", brk["line"] or 0, brk["title"])
        if key in merged:
            old = merged[key]
            old["count"] += 1
            old["frame_skipped"] = old["frame_skipped"] or brk["frame_skipped"]
            if len(brk["stack"]) > len(old["stack"]):  # the first record has the full stack
                old["stack"] = brk["stack"]
            if old["kind"] == "duplicate":
                old["kind"] = brk["kind"]
            old["gb"] = old["gb"] or brk["gb"]
            continue
        merged[key] = dict(brk, count=1)
    return [merged[key] for key in sorted(merged, key=lambda k: (k[0], k[1], k[2]))]


# ---------------------------------------------------------------------------------------------
# Driver side


def _clean_env() -> dict:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TORCH_LOGS", "TORCHDYNAMO", "TORCHINDUCTOR", "TORCH_COMPILE"))}
    env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0", PYTHONBREAKPOINT="0",
               PYTHONDONTWRITEBYTECODE="1")
    return env


class CaseServer:
    """One interpreter that imports torch once and forks a child per case (`--serve`).

    Importing torch and dynamo takes about 4 of the 7 seconds a case costs. A forked child
    starts from a process that never compiled, traced or ran anything, so each case is as
    isolated as in a fresh interpreter: dynamo's caches, the case module and whatever the
    case mutates die with the child.
    """

    def __init__(self, cases_dir: str, config: dict, fullgraph: bool, timeout: float):
        self.cases_dir = cases_dir
        self.command = [sys.executable, os.path.abspath(__file__), "--serve", "--cases", cases_dir,
                        "--timeout", str(timeout)]
        for key, value in sorted(config.items()):
            self.command += ["--config", f"{key}={value!r}"]
        if fullgraph:
            self.command.append("--fullgraph")
        self.process = self._start()

    def _start(self) -> subprocess.Popen:
        return subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True, env=_clean_env(), cwd=self.cases_dir)

    def run(self, file_name: str, index: int) -> dict:
        if self.process.poll() is not None:
            self.process = self._start()  # the server died with the last case: the next gets a new one
        fd, out_path = tempfile.mkstemp(prefix="sfx_truth_", suffix=".json")
        os.close(fd)
        try:
            try:
                self.process.stdin.write(json.dumps([file_name, index, out_path]) + "\n")
                self.process.stdin.flush()
                status = self.process.stdout.readline().strip()
            except OSError as exc:  # BrokenPipeError: the server is gone
                status = f"the case server died: {exc}"
            try:
                with open(out_path, encoding="utf-8") as handle:
                    return json.load(handle)
            except (OSError, ValueError):
                return {"name": None, "index": index, "worker_error": status or "the case server died"}
        finally:
            os.unlink(out_path)

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait()


def serve(cases_dir: str, config: dict, fullgraph: bool, timeout: float) -> int:
    """The `--serve` side of CaseServer: a JSON job per stdin line, a status line per job."""
    import signal

    import torch._dynamo  # noqa: F401 - imported once, before any fork

    for line in sys.stdin:
        file_name, index, out_path = json.loads(line)
        pid = os.fork()
        if pid == 0:
            try:
                signal.alarm(int(timeout))  # the default SIGALRM action ends the child
                os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # cases print; keep the protocol clean
                try:
                    result = worker(cases_dir, file_name, index, config, fullgraph)
                except BaseException as exc:  # noqa: BLE001 - reported as the case's error
                    result = {"name": None, "index": index, "worker_error": f"{type(exc).__name__}: {exc}"[:300]}
                with open(out_path, "w", encoding="utf-8") as handle:
                    json.dump(result, handle)
            finally:
                os._exit(0)
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGALRM:
            print(f"timeout after {timeout:.0f}s", flush=True)
        else:
            print(f"exit status {os.waitstatus_to_exitcode(status)}", flush=True)
    return 0


def _worker_count_cases(cases_dir: str, file_name: str) -> int:
    """len(CASES) for a file whose CASES is computed: ask an interpreter."""
    code = ("import sys, json; sys.path.insert(0, sys.argv[1]); "
            "import importlib; m = importlib.import_module(sys.argv[2]); print(len(m.CASES))")
    root, package = package_of(cases_dir)
    modname = f"{package}.{file_name[:-3]}" if package else file_name[:-3]
    out = subprocess.run([sys.executable, "-c", code, root if package else cases_dir, modname],
                         capture_output=True, text=True, env=_clean_env(), check=True)
    return int(out.stdout.strip().splitlines()[-1])


def record(cases_dir: str, names: list[str], config: dict, fullgraph: bool, jobs: int,
           timeout: float, progress: bool = True) -> dict[str, dict]:
    jobs_list = []
    for name in names:
        count = number_of_cases(os.path.join(cases_dir, name))
        if count == -1:
            count = _worker_count_cases(cases_dir, name)
        jobs_list.extend((name, i) for i in range(count or 0))
    done = 0
    workers = max(1, min(jobs, MAX_JOBS))
    started = time.monotonic()
    if progress:
        print(f"recording {len(jobs_list)} cases of {len(names)} files, {workers} at a time "
              f"(each in a fresh fork of an interpreter that imported torch)", file=sys.stderr, flush=True)

    def one(job):
        nonlocal done
        began = time.monotonic()
        server = servers.get()
        try:
            result = server.run(job[0], job[1])
        finally:
            servers.put(server)
        done += 1
        if progress:
            nb = len(result.get("breaks", []))
            flag = " ERROR" if result.get("worker_error") or result.get("eager_error") else ""
            print(f"[{done}/{len(jobs_list)}] {job[0]}#{job[1]} {result.get('name')}: {nb} break(s){flag} "
                  f"({time.monotonic() - began:.1f} s; {time.monotonic() - started:.0f} s in all)",
                  file=sys.stderr, flush=True)
        return result

    servers: queue.Queue[CaseServer] = queue.Queue()
    for _ in range(workers):
        servers.put(CaseServer(cases_dir, config, fullgraph, timeout))
    try:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(one, jobs_list))
    finally:
        while not servers.empty():
            servers.get().close()
    files: dict[str, dict] = {name: {"cases": []} for name in names}
    for (name, _), result in zip(jobs_list, results):
        files[name]["cases"].append(result)
    return files


def truth_document(files: dict[str, dict], config: dict, fullgraph: bool) -> dict:
    import importlib.metadata
    try:
        torch_version = importlib.metadata.version("torch").split("+")[0]  # 2.13.0+cpu -> 2.13.0
    except importlib.metadata.PackageNotFoundError:
        torch_version = None
    return {
        "format": FORMAT_VERSION,
        "torch": torch_version,
        "python": f"{sys.version_info.major}.{sys.version_info.minor}",
        "backend": "eager",
        "fullgraph": fullgraph,
        "config": {key: config[key] for key in sorted(config)},
        "files": {name: files[name] for name in sorted(files)},
    }


def dumps(document: dict) -> str:
    return json.dumps(document, indent=1, sort_keys=True) + "\n"


def default_output(cases_dir: str, config: dict, fullgraph: bool) -> str:
    if not config and not fullgraph:
        return os.path.join(cases_dir, "truth.json")
    parts = (["fullgraph"] if fullgraph else []) + [f"{k}={v}" for k, v in sorted(config.items())]
    slug = re.sub(r"[^A-Za-z0-9_=.-]+", "_", "-".join(parts))
    return os.path.join(cases_dir, f"truth-{slug}.json")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", help="case files (names in the cases directory); default: all")
    ap.add_argument("--cases", default=DEFAULT_CASES, help="the cases directory (default: %(default)s)")
    ap.add_argument("-o", "--output", help="truth file (default: CASES/truth.json)")
    ap.add_argument("-j", "--jobs", type=int, default=MAX_JOBS, help=f"parallel cases, at most {MAX_JOBS}")
    ap.add_argument("--config", action="append", default=[], metavar="NAME=VALUE",
                    help="set torch._dynamo.config.NAME to a Python literal, or to a set of "
                         "dotted names such as {logging.Logger.info} (repeatable)")
    ap.add_argument("--fullgraph", action="store_true", help="torch.compile(..., fullgraph=True)")
    ap.add_argument("--check", action="store_true",
                    help="re-record into a temporary file and compare with the truth file")
    ap.add_argument("--show", action="store_true", help="print the recorded truth, write nothing")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    config = {}
    for item in args.config:
        key, sep, value = item.partition("=")
        if not sep:
            ap.error(f"--config wants NAME=VALUE, got {item!r}")
        config[key.strip()] = parse_config_value(value.strip())
    cases_dir = os.path.abspath(args.cases)

    if args.serve:
        return serve(cases_dir, config, args.fullgraph, args.timeout)

    all_names = case_files(cases_dir)
    names = [os.path.basename(f) for f in args.files] or all_names
    unknown = sorted(set(names) - set(all_names))
    if unknown:
        ap.error(f"not case files of {cases_dir}: {', '.join(unknown)}")
    output = args.output or default_output(cases_dir, config, args.fullgraph)
    files = record(cases_dir, names, config, args.fullgraph, args.jobs, args.timeout, not args.quiet)

    if args.show:
        print(dumps({name: files[name] for name in names}))
        return 0

    if args.files:  # merge into the existing truth; drop files that are no longer cases
        try:
            with open(output, encoding="utf-8") as handle:
                previous = json.load(handle)["files"]
        except (OSError, ValueError, KeyError):
            previous = {}
        merged = {name: previous[name] for name in all_names if name in previous}
        merged.update(files)
        files = merged
    document = truth_document(files, config, args.fullgraph)
    text = dumps(document)

    problems = [(name, case.get("name"), case.get("eager_error") or case.get("worker_error"))
                for name in names for case in files[name]["cases"]
                if case.get("eager_error") or case.get("worker_error")]
    for problem in problems:
        print("ERROR %s %s: %s" % problem, file=sys.stderr)

    if args.check:
        try:
            with open(output, encoding="utf-8") as handle:
                committed = handle.read()
        except OSError:
            committed = ""
        if args.files:  # compare only the files asked for
            committed_doc = json.loads(committed or "{}")
            old = {n: committed_doc.get("files", {}).get(n) for n in names}
            new = {n: files[n] for n in names}
            committed, text = dumps(old), dumps(new)
        if committed != text:
            sys.stdout.writelines(difflib.unified_diff(
                committed.splitlines(True), text.splitlines(True), "committed", "recorded"))
            print(f"truth differs from {output}", file=sys.stderr)
            return 1
        print(f"truth matches {output}", file=sys.stderr)
        return 0

    with open(output, "w", encoding="utf-8") as handle:
        handle.write(text)
    print(f"wrote {output}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
