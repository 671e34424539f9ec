"""Robustness run: the plugin's analysis over whole source trees, never trusting it to return.

    python benchmarks/robustness.py [DIR ...] [--jobs N] [--limit N] [--json] [--timeout S]

Without DIR it lints the installed torch and numpy packages and the standard library, found
by path (importlib.util.find_spec(...).submodule_search_locations and sysconfig): torch is
never imported, here or in the workers.

Each file goes through the pipeline the flake8 entry point runs (`analysis.analyze` on
flake8's `ast` tree, then `report.flake8_diagnostics` with notices on), in a worker process
that the parent kills when one file takes longer than --timeout seconds: a hang is reported,
not waited on. By default the pipeline runs *without* the Checker's last `except Exception`
guard, so that an exception the Checker would swallow (losing every diagnostic of the file)
is seen here as a crash with its traceback; `--checker` runs `plugin.Checker` itself instead,
and then only what escapes the Checker counts.

Reported: files, crashes (with tracebacks), hangs, SFX900 notices (by kind; the notices
that contain an internal error rather than a budget are listed with the traceback of the
contained exception), files slower than --slow seconds of wall-clock time (with their CPU
time: on a loaded machine the two differ), the slowest files, peak memory (ru_maxrss of the
workers), the total time and the load average. Exits 1 on any crash or hang.
"""
from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import multiprocessing
import os
import resource
import sys
import sysconfig
import time
import tokenize
import traceback
from multiprocessing.connection import wait

SKIP_DIRS = {"site-packages", "dist-packages", "__pycache__", ".git"}


# ---------------------------------------------------------------------------- files

def default_dirs() -> list[str]:
    """The installed torch and numpy and the standard library, by path only."""
    found = []
    for name in ("torch", "numpy"):
        try:
            spec = importlib.util.find_spec(name)  # a top-level spec: imports nothing
        except (ImportError, ValueError):
            spec = None
        if spec is not None and spec.submodule_search_locations:
            found.extend(spec.submodule_search_locations)
    stdlib = sysconfig.get_paths().get("stdlib")
    if stdlib and os.path.isdir(stdlib):
        found.append(stdlib)
    return [d for d in found if os.path.isdir(d)]


def python_files(dirs: list[str]) -> list[str]:
    files: list[str] = []
    seen: set[str] = set()
    for top in dirs:
        if os.path.isfile(top):
            candidates = [top]
        else:
            candidates = []
            for directory, subdirs, names in os.walk(top):
                subdirs[:] = sorted(d for d in subdirs if d not in SKIP_DIRS)
                candidates.extend(os.path.join(directory, n) for n in sorted(names) if n.endswith(".py"))
        for path in candidates:
            real = os.path.realpath(path)
            if real not in seen:
                seen.add(real)
                files.append(path)
    return files


# --------------------------------------------------------------------------- worker

def _install_notice_tracer(store: list) -> None:
    """Record the traceback of every exception that analyze() contains as a notice.

    analyze() catches any exception of a root's build and turns it into an SFX900 notice;
    wrapping the Interpreter it uses (in this process only) keeps the traceback for the report.
    """
    from flake8_staticfx import analysis

    base = analysis.Interpreter

    class TracingInterpreter(base):  # type: ignore[misc, valid-type]
        def build(self, root):  # noqa: ANN001, ANN201
            try:
                return super().build(root)
            except analysis.BudgetExceeded:
                raise
            except Exception:
                store.append({"root": root.name, "line": root.function.lineno,
                              "traceback": traceback.format_exc(limit=-12)})
                raise

    analysis.Interpreter = TracingInterpreter


def _lint(path: str, use_checker: bool, traced: list) -> dict:
    """One file through the flake8 pipeline; never raises."""
    from flake8_staticfx.analysis import analyze
    from flake8_staticfx.config import Options
    from flake8_staticfx.front.plugin import Checker
    from flake8_staticfx.front.report import flake8_diagnostics

    result: dict = {"path": path, "status": "ok", "diagnostics": 0, "notices": [], "time": 0.0, "cpu": 0.0}
    try:
        with tokenize.open(path) as handle:  # flake8 decodes by the coding cookie too
            lines = handle.readlines()
        source = "".join(lines)
        tree = ast.parse(source, path)
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError, RecursionError, MemoryError) as exc:
        # flake8 reports E999/E902 and never calls the plugin on such a file.
        result.update(status="skipped", reason=f"{type(exc).__name__}: {str(exc)[:100]}")
        return result
    options = Options(report_notices=True)
    del traced[:]
    start, start_cpu = time.perf_counter(), time.process_time()
    try:
        if use_checker:
            Checker.options = options
            found = [(line, col, message) for line, col, message, _ in Checker(tree, path, lines).run()]
            notices = [(line, message) for line, _, message in found if message.startswith("SFX900")]
            result["notices"] = [{"line": line, "what": "", "reason": message} for line, message in notices]
        else:
            analysis = analyze(source, path, tree, options)
            found = list(flake8_diagnostics(analysis, True))
            result["notices"] = [{"line": n.line, "what": n.what, "reason": n.reason} for n in analysis.notices]
        result["diagnostics"] = sum(1 for _, _, message in found if not message.startswith("SFX900"))
    except BaseException as exc:  # noqa: BLE001 - that is what is being measured
        result.update(status="crash", error=f"{type(exc).__name__}: {str(exc)[:200]}",
                      traceback=traceback.format_exc(limit=-25))
        if isinstance(exc, KeyboardInterrupt):
            raise
    result["time"] = time.perf_counter() - start
    result["cpu"] = time.process_time() - start_cpu
    if traced:
        result["contained"] = list(traced)
    return result


def _worker(connection, use_checker: bool, memory_limit_mb: int) -> None:  # noqa: ANN001
    if memory_limit_mb:
        limit = memory_limit_mb * 1024 * 1024
        try:
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        except (ValueError, OSError):
            pass
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    traced: list = []
    _install_notice_tracer(traced)
    while True:
        try:
            path = connection.recv()
        except EOFError:
            return
        if path is None:
            return
        result = _lint(path, use_checker, traced)
        result["maxrss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        connection.send(result)


class Worker:
    def __init__(self, context, use_checker: bool, memory_limit_mb: int):  # noqa: ANN001
        self.connection, child = context.Pipe()
        self.process = context.Process(target=_worker, args=(child, use_checker, memory_limit_mb),
                                       daemon=True)
        self.process.start()
        child.close()
        self.path: str | None = None
        self.started = 0.0

    def submit(self, path: str) -> None:
        self.path = path
        self.started = time.monotonic()
        self.connection.send(path)

    def kill(self) -> None:
        self.process.kill()
        self.process.join(5)
        self.connection.close()

    def stop(self) -> None:
        try:
            self.connection.send(None)
        except OSError:
            pass
        self.process.join(10)
        if self.process.is_alive():
            self.kill()


def run(files: list[str], jobs: int, timeout: float, use_checker: bool, memory_limit_mb: int,
        progress: bool = False) -> tuple[list[dict], int]:
    """Lint `files` in `jobs` workers; a worker past `timeout` on a file is killed and replaced.

    Returns the per-file results and the peak ru_maxrss (KiB) seen in any worker."""
    context = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    # Import the plugin (never torch) before forking, so that a file's clock does not run
    # while a fresh worker imports astroid.
    import flake8_staticfx.analysis  # noqa: F401
    import flake8_staticfx.front.plugin  # noqa: F401
    import flake8_staticfx.front.report  # noqa: F401
    pending = list(reversed(files))
    workers = [Worker(context, use_checker, memory_limit_mb) for _ in range(max(1, min(jobs, len(files))))]
    results: list[dict] = []
    peak = 0
    done = 0
    for worker in workers:
        if pending:
            worker.submit(pending.pop())
    while any(w.path is not None for w in workers):
        busy = [w for w in workers if w.path is not None]
        now = time.monotonic()
        next_deadline = min(w.started + timeout for w in busy)
        ready = wait([w.connection for w in busy], timeout=max(0.0, next_deadline - now))
        for worker in busy:
            result = None
            if worker.connection in ready:
                try:
                    result = worker.connection.recv()
                except (EOFError, OSError):
                    code = worker.process.exitcode
                    worker.process.join(5)
                    result = {"path": worker.path, "status": "crash", "time": time.monotonic() - worker.started,
                              "error": f"worker died (exit code {worker.process.exitcode if code is None else code})",
                              "traceback": "", "notices": [], "diagnostics": 0}
            elif time.monotonic() - worker.started > timeout:
                result = {"path": worker.path, "status": "hang", "time": time.monotonic() - worker.started,
                          "error": f"killed after {timeout:g} s", "notices": [], "diagnostics": 0}
            if result is None:
                continue
            peak = max(peak, result.pop("maxrss_kb", 0))
            results.append(result)
            done += 1
            if progress and done % 250 == 0:
                print(f"... {done}/{len(files)} files", file=sys.stderr, flush=True)
            if result["status"] in ("hang", "crash") and not worker.process.is_alive() or result["status"] == "hang":
                worker.kill()
                index = workers.index(worker)
                worker = workers[index] = Worker(context, use_checker, memory_limit_mb)
            worker.path = None
            if pending:
                worker.submit(pending.pop())
    for worker in workers:
        worker.stop()
    peak = max(peak, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    return results, peak


# --------------------------------------------------------------------------- report

def notice_kind(reason: str) -> str:
    return reason.split(":", 1)[0].strip() or "?"


BUDGET_KINDS = {"BudgetExceeded", "unknown decorator"}  # notices by design, not internal errors


def summarize(results: list[dict], peak_kb: int, total: float, slow: float) -> dict:
    analysed = [r for r in results if r["status"] != "skipped"]
    crashes = [r for r in results if r["status"] == "crash"]
    hangs = [r for r in results if r["status"] == "hang"]
    notices = [dict(n, path=r["path"]) for r in results for n in r["notices"]]
    kinds: dict[str, int] = {}
    for notice in notices:
        kind = notice_kind(notice["reason"])
        kinds[kind] = kinds.get(kind, 0) + 1
    contained = [dict(c, path=r["path"]) for r in results for c in r.get("contained", ())]
    timed = sorted(analysed, key=lambda r: r["time"], reverse=True)
    return {
        "files": len(results),
        "analysed": len(analysed),
        "skipped": len(results) - len(analysed),
        "with_diagnostics": sum(1 for r in analysed if r["diagnostics"]),
        "diagnostics": sum(r["diagnostics"] for r in analysed),
        "crashes": [{"path": r["path"], "error": r["error"], "traceback": r.get("traceback", "")} for r in crashes],
        "hangs": [{"path": r["path"], "error": r["error"]} for r in hangs],
        "notices": len(notices),
        "notice_kinds": dict(sorted(kinds.items(), key=lambda kv: -kv[1])),
        "internal_error_notices": [n for n in notices if notice_kind(n["reason"]) not in BUDGET_KINDS],
        "contained_tracebacks": contained,
        "slow_threshold": slow,
        "slow": [{"path": r["path"], "time": round(r["time"], 3), "cpu": round(r.get("cpu", r["time"]), 3),
                  "status": r["status"], "notices": [n["reason"] for n in r["notices"]]}
                 for r in timed if r["time"] > slow],
        "slow_cpu": sum(1 for r in analysed if r.get("cpu", r["time"]) > slow),
        "slowest": [{"path": r["path"], "time": round(r["time"], 3), "cpu": round(r.get("cpu", r["time"]), 3)}
                    for r in timed[:10]],
        "max_time": round(timed[0]["time"], 3) if timed else 0.0,
        "max_cpu": round(max((r.get("cpu", r["time"]) for r in analysed), default=0.0), 3),
        "analysis_time": round(sum(r["time"] for r in analysed), 3),
        "peak_memory_mb": round(peak_kb / 1024, 1),
        "total_time": round(total, 3),
        "load_average": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
    }


def print_summary(summary: dict, out=sys.stdout) -> None:  # noqa: ANN001
    p = lambda *a: print(*a, file=out)  # noqa: E731
    p(f"files: {summary['files']} ({summary['analysed']} analysed, {summary['skipped']} not parseable, skipped "
      f"as flake8 does)")
    p(f"diagnostics: {summary['diagnostics']} in {summary['with_diagnostics']} files")
    p(f"crashes: {len(summary['crashes'])}")
    for crash in summary["crashes"]:
        p(f"  {crash['path']}: {crash['error']}")
        for line in crash["traceback"].rstrip().splitlines():
            p(f"    {line}")
    p(f"hangs: {len(summary['hangs'])}")
    for hang in summary["hangs"]:
        p(f"  {hang['path']}: {hang['error']}")
    p(f"notices: {summary['notices']}  " + ", ".join(f"{k}: {v}" for k, v in summary["notice_kinds"].items()))
    internal = summary["internal_error_notices"]
    p(f"notices that contain an internal error: {len(internal)}")
    for notice in internal[:50]:
        p(f"  {notice['path']}:{notice['line']}: {notice['what']}: {notice['reason']}")
    for contained in summary["contained_tracebacks"][:20]:
        p(f"  contained in {contained['path']}:{contained['line']} {contained['root']}:")
        for line in contained["traceback"].rstrip().splitlines()[-6:]:
            p(f"    {line}")
    p(f"files slower than {summary['slow_threshold']:g} s (wall clock): {len(summary['slow'])}; "
      f"by CPU time: {summary['slow_cpu']}")
    for entry in summary["slow"]:
        p(f"  {entry['time']:8.3f} s ({entry['cpu']:.3f} s CPU)  {entry['path']}  "
          f"{'; '.join(sorted(set(entry['notices'])))[:160]}")
    p("slowest files:")
    for entry in summary["slowest"]:
        p(f"  {entry['time']:8.3f} s ({entry['cpu']:.3f} s CPU)  {entry['path']}")
    p(f"max time: {summary['max_time']:.3f} s (max CPU {summary['max_cpu']:.3f} s);  "
      f"analysis time: {summary['analysis_time']:.1f} s")
    p(f"peak memory (max rss of a worker): {summary['peak_memory_mb']:.1f} MB")
    p(f"total time: {summary['total_time']:.1f} s;  load average at the end: {summary['load_average']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="*", metavar="DIR",
                        help="trees (or files) to lint; default: installed torch, numpy and the stdlib")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N files")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="hard wall-clock limit per file; a file past it is a hang (default 60)")
    parser.add_argument("--slow", type=float, default=2.0, help="report files slower than this (default 2)")
    parser.add_argument("--checker", action="store_true",
                        help="run through plugin.Checker (its own guard swallows exceptions) instead of "
                             "analyze + flake8_diagnostics")
    parser.add_argument("--memory-limit", type=int, default=4096, metavar="MB",
                        help="address-space limit per worker, 0 for none (default 4096)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)

    dirs = args.dirs or default_dirs()
    missing = [d for d in dirs if not os.path.exists(d)]
    if missing:
        parser.error(f"no such file or directory: {', '.join(missing)}")
    files = python_files(dirs)
    if args.limit:
        files = files[:args.limit]
    if not args.quiet:
        print(f"linting {len(files)} files under {', '.join(dirs)} with {args.jobs} job(s)",
              file=sys.stderr, flush=True)
    start = time.perf_counter()
    results, peak = run(files, args.jobs, args.timeout, args.checker, args.memory_limit,
                        progress=not args.quiet)
    summary = summarize(results, peak, time.perf_counter() - start, args.slow)
    if args.json:
        json.dump(summary, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print_summary(summary)
    return 1 if summary["crashes"] or summary["hangs"] else 0


if __name__ == "__main__":
    sys.exit(main())
