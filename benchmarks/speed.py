#!/usr/bin/env python
"""How much flake8-staticfx adds to a flake8 run: per file, per lint gate, per editor keystroke.

    python benchmarks/speed.py [DIR_OR_FILE ...] [--limit N] [--sample] [--repeat N] [--json OUT]
    python benchmarks/speed.py --libraries-from SITE_PACKAGES --sample --limit 50 --repeat 3
    python benchmarks/speed.py benchmarks/library_users --library-path SITE_PACKAGES --repeat 3
    python benchmarks/speed.py --profile [--limit N --sample]

Run it with the interpreter of the environment where the plugin is installed (its `SFX`
flake8 entry point must be registered there).

Files
    Without arguments: the model-definition files of the libraries that are importable *as
    source* from this interpreter -- transformers  models/*/modeling_*.py, timm models/*.py,
    torchvision models/**/*.py, diffusers models/**/*.py.  They are located with
    importlib.util.find_spec(name).submodule_search_locations, which never imports the
    package, so the libraries may simply be unpacked and put on PYTHONPATH, e.g.
        PYTHONPATH=/work/libsrc/transformers:/work/libsrc/timm:/work/libsrc/torchvision:/work/libsrc/diffusers
    If none is found, pass directories (every *.py below them) or files.  --limit N keeps the
    first N files (sorted), with --sample N files picked by a stable hash of their path
    (deterministic, spread over all libraries); --sample alone means --limit 300 --sample.
    --libraries-from SITE takes the model files from that site-packages instead (never imported).
    --library-path SITE is the plugin's --staticfx-library-path in every run with the plugin:
    benchmarks/library_users holds small user model files that call transformers, timm,
    diffusers and torchvision, the code a user's lint gate follows into installed libraries.

1. In-process, per file (one process, flake8's own API).  flake8 is configured once with
   `parse_args` (exactly the plugins and options a `flake8 --isolated --jobs 1` run gets), and
   every file goes through `flake8.checker.FileChecker(...).run_checks()` plus the style
   guide's result handling -- what flake8's serial Manager does per file:
     pass A  "flake8":        the checker plugins minus SFX (pyflakes F, pycodestyle E/W, mccabe C90);
     pass B  "flake8 + SFX":  all checker plugins, the SFX plugin wrapped so that its own
                              share (constructor + consuming run()) is timed too.
   Pass A runs over all files before pass B (so the baseline never pays for the plugin's
   caches in the garbage collector); --interleave alternates A and B per file instead.
   CPU time is time.process_time(); wall time is recorded as well.  The plugin is run with
   --staticfx-notices so that a file that hit the plugin's time/node budget is visible
   (SFX900 is off by default, flake8's style guide drops it as it would in a normal run).
   The one-off lazy import of the plugin's analysis modules is timed separately.

2. Whole set, fresh process: `flake8 --isolated --jobs 1 FILES...` once with the plugin and
   once without it.  CPU (user+sys) and peak RSS (ru_maxrss) are that child's own rusage, as
   getrusage(RUSAGE_CHILDREN) reports it in a parent whose only child it is: a tiny launcher
   (`python -I -S`, ~10 MiB) forks/execs flake8 and os.wait4()s it.  (Spawning flake8 straight
   from this benchmark process would report this process's peak RSS instead: Linux keeps the
   memory high-water mark across exec, and subprocess spawns with vfork.)  Every run but three
   has the cache between runs off ($FLAKE8_STATICFX_NO_CACHE); those three run the plugin with
   --staticfx-cache-dir in an empty directory, "cold cache" (filling it) then "warm cache", then
   "edited": a copy of the set, a comment appended to each file, with the cache the two left.
   --repeat N runs the five rows N times, interleaved, and reports the median CPU and wall.

3. Editor latency: a fresh flake8 on the largest file of the set and on the file closest to
   500 lines, with and without the plugin, --editor-repeat times (default 3, after one untimed
   warm-up run each), interleaved; median wall and CPU.

   "Without the plugin" (2 and 3) is a second virtual environment, --noplugin-venv
   (default /work/speed_tmp/venv-noplugin), created on demand: `python -m venv --without-pip`
   from the same base interpreter, whose site-packages holds a symlink to every entry of this
   interpreter's site-packages except the plugin's own (its dist-info, editable .pth/finder,
   package).  So both environments have the same flake8, pyflakes, pycodestyle, mccabe,
   astroid and the same number of installed distributions for flake8's entry-point scan --
   only the SFX entry point differs.  Both are launched the same way, `python -I -m flake8`
   from a neutral working directory (-I: no PYTHONPATH, no cwd on sys.path -- a checkout
   with flake8_staticfx.egg-info in the cwd would otherwise re-register the plugin), and
   `flake8 --version` is checked in each to prove the plugin is (not) there.

4. Markdown report on stdout; --json OUT writes every number (and per-file rows) as JSON.
   --profile instead runs cProfile over the plugin alone (Checker(tree, filename, lines).run(),
   tree from ast.parse, same options as flake8 gives it) on the file set and prints the top
   25 functions by cumulative and by own time, plus own time summed per module.

Targets (the issue "Fast enough for an editor and a monorepo lint gate"): flake8+SFX <= 1.5x
flake8 (CPU, same run); fresh process on the largest file <= 2x and on a typical 500-line
file <= 2x; peak memory of one --jobs 1 process over all files < 300 MiB.
"""
from __future__ import annotations

import argparse
import cProfile
import hashlib
import importlib.util
import io
import json
import math
import operator
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

LIBRARIES = (
    # (import name, glob below the package directory)
    ("transformers", "models/*/modeling_*.py"),
    ("timm", "models/*.py"),
    ("torchvision", "models/**/*.py"),
    ("diffusers", "models/**/*.py"),
)
PLUGIN_CODE = "SFX"
PLUGIN_PACKAGE = "flake8_staticfx"
PLUGIN_DIST = "flake8-staticfx"
DEFAULT_NOPLUGIN_VENV = "/work/speed_tmp/venv-noplugin"
TYPICAL_LINES = 500
EDITOR_TARGETS = ("largest", "typical")
TARGET_RATIO = 1.5
TARGET_EDITOR = 2.0
TARGET_RSS_MIB = 300.0


# ---------------------------------------------------------------------------
# The file set


@dataclass
class SourceFile:
    path: str
    group: str  # library name, or the DIR argument it came from
    rel: str  # path relative to the group root (stable across machines)
    lines: int = 0


def library_files(site: str | None) -> tuple[list[SourceFile], dict[str, str]]:
    """The model files of LIBRARIES, found in the directory `site` (a site-packages), else by
    find_spec from this interpreter."""
    files, roots = [], {}
    for name, pattern in LIBRARIES:
        if site:
            locations = [os.path.join(site, name)] if os.path.isdir(os.path.join(site, name)) else []
        else:
            try:
                spec = importlib.util.find_spec(name)  # top-level name: nothing is imported
            except (ImportError, ValueError):
                spec = None
            locations = spec.submodule_search_locations if spec is not None else None
        if not locations:
            continue
        for location in locations:
            root = Path(location)
            found = sorted(p for p in root.glob(pattern) if p.is_file())
            if found:
                roots[name] = str(root)
                files += [SourceFile(str(p), name, str(p.relative_to(root))) for p in found]
                break
    return files, roots


def argument_files(args: list[str]) -> list[SourceFile]:
    files = []
    for arg in args:
        path = Path(arg).resolve()
        if path.is_dir():
            files += [SourceFile(str(p), path.name, str(p.relative_to(path)))
                      for p in sorted(path.rglob("*.py")) if p.is_file()]
        elif path.is_file():
            files.append(SourceFile(str(path), path.parent.name, path.name))
        else:
            raise SystemExit(f"speed.py: no such file or directory: {arg}")
    return files


def count_lines(path: str) -> int:
    with open(path, "rb") as handle:
        return sum(1 for _ in handle)


def select(files: list[SourceFile], limit: int | None, sample: bool) -> list[SourceFile]:
    if sample:
        limit = limit or 300
        key = lambda f: hashlib.sha1(f"{f.group}/{f.rel}".encode()).hexdigest()  # noqa: E731
        chosen = sorted(files, key=key)[:limit]
        return sorted(chosen, key=lambda f: f.path)
    files = sorted(files, key=lambda f: f.path)
    return files[:limit] if limit else files


# ---------------------------------------------------------------------------
# Statistics


def pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def summary(values: list[float]) -> dict:
    return {"median": statistics.median(values) if values else float("nan"),
            "p95": pct(values, 95), "max": max(values) if values else float("nan"),
            "total": sum(values), "n": len(values)}


# ---------------------------------------------------------------------------
# 1. In-process measurement through flake8's FileChecker


@dataclass
class FileRow:
    path: str
    group: str
    rel: str
    lines: int
    base_cpu: float = 0.0  # pass A: flake8 without SFX
    base_wall: float = 0.0
    full_cpu: float = 0.0  # pass B: flake8 with SFX
    full_wall: float = 0.0
    sfx_cpu: float = 0.0  # SFX's own share of pass B
    sfx_wall: float = 0.0
    base_gc: float = 0.0  # CPU in the cyclic garbage collector during pass A / pass B / SFX
    full_gc: float = 0.0
    sfx_gc: float = 0.0
    sfx_diagnostics: int = 0
    flake8_results: int = 0
    budget_notices: int = 0
    error: str = ""


class _Clock:
    def __init__(self):
        self.cpu = self.wall = self.gc = 0.0


class _GCClock:
    """CPU spent in gc collections (gc.callbacks), so that the garbage collector's share --
    which grows with the plugin's caches and may be charged to flake8's own code -- is visible."""

    def __init__(self):
        self.total = 0.0
        self._start = 0.0

    def __call__(self, phase, info):
        if phase == "start":
            self._start = time.process_time()
        else:
            self.total += time.process_time() - self._start


def _timed_plugin(loaded, clock: _Clock, gc_clock: _GCClock):
    """The LoadedPlugin with its callable wrapped: constructor and run() are timed into clock."""
    real = loaded.obj

    class TimedRun:
        def __init__(self, instance):
            self.instance = instance

        def run(self):
            c0, w0, g0 = time.process_time(), time.perf_counter(), gc_clock.total
            try:
                return list(self.instance.run())
            finally:
                clock.cpu += time.process_time() - c0
                clock.wall += time.perf_counter() - w0
                clock.gc += gc_clock.total - g0

    def factory(**kwargs):
        c0, w0, g0 = time.process_time(), time.perf_counter(), gc_clock.total
        try:
            return TimedRun(real(**kwargs))
        finally:
            clock.cpu += time.process_time() - c0
            clock.wall += time.perf_counter() - w0
            clock.gc += gc_clock.total - g0

    return loaded._replace(obj=factory)  # parameters (tree, filename, lines) are kept


def flake8_setup(extra: list[str]):
    """flake8's plugins and options exactly as `flake8 --isolated --jobs 1 -qq` would build them."""
    from flake8.options.parse_args import parse_args
    from flake8.plugins import reporter
    from flake8.style_guide import StyleGuideManager

    argv = ["--isolated", "--jobs", "1", "-qq", *extra]
    plugins, options = parse_args(argv)
    formatter = reporter.make(plugins.reporters, options)
    formatter.start()
    guide = StyleGuideManager(options, formatter)
    return plugins, options, guide


def run_inprocess(files: list[SourceFile], interleave: bool, progress: bool,
                  plugin_args: list[str]) -> tuple[list[FileRow], dict]:
    import flake8
    from flake8.checker import FileChecker
    from flake8.exceptions import PluginExecutionFailed
    from flake8.plugins.finder import Checkers

    try:
        plugins, options, guide = flake8_setup(["--staticfx-notices", *plugin_args])
        notices = True
    except SystemExit:  # the option was renamed: measure without the budget column
        plugins, options, guide = flake8_setup(plugin_args)
        notices = False
    checkers = plugins.checkers
    names = [p.entry_name for p in checkers.tree + checkers.logical_line + checkers.physical_line]
    ours = [p for p in checkers.tree if p.entry_name == PLUGIN_CODE]
    if not ours:
        raise SystemExit(f"speed.py: the {PLUGIN_CODE} flake8 plugin is not registered for "
                         f"{sys.executable}; run this with the plugin's environment")
    import gc

    clock, gc_clock = _Clock(), _GCClock()
    gc.callbacks.append(gc_clock)
    base = Checkers(tree=[p for p in checkers.tree if p.entry_name != PLUGIN_CODE],
                    logical_line=checkers.logical_line, physical_line=checkers.physical_line)
    full = Checkers(tree=[_timed_plugin(p, clock, gc_clock) if p.entry_name == PLUGIN_CODE else p
                          for p in checkers.tree],
                    logical_line=checkers.logical_line, physical_line=checkers.physical_line)

    # The plugin imports its analysis lazily on the first file: a one-off, timed on its own.
    c0, w0 = time.process_time(), time.perf_counter()
    import flake8_staticfx.analysis  # noqa: F401
    import flake8_staticfx.front.report  # noqa: F401
    lazy_import = {"cpu": time.process_time() - c0, "wall": time.perf_counter() - w0}

    def one(row: FileRow, which: Checkers, plugin: bool) -> None:
        clock.cpu = clock.wall = clock.gc = 0.0
        c0, w0, g0 = time.process_time(), time.perf_counter(), gc_clock.total
        try:
            checker = FileChecker(filename=row.path, plugins=which, options=options)
            _, results, _ = checker.run_checks()
            results.sort(key=operator.itemgetter(1, 2))
            with guide.processing_file(row.path):
                for code, line, col, text, physical in results:
                    guide.handle_error(code, row.path, line, col, text, physical)
        except PluginExecutionFailed as exc:
            row.error = str(exc)[:200]
            results = []
        cpu, wall, gc_cpu = time.process_time() - c0, time.perf_counter() - w0, gc_clock.total - g0
        if plugin:
            row.full_cpu, row.full_wall, row.full_gc = cpu, wall, gc_cpu
            row.sfx_cpu, row.sfx_wall, row.sfx_gc = clock.cpu, clock.wall, clock.gc
            row.sfx_diagnostics = sum(1 for r in results if r[0].startswith(PLUGIN_CODE)
                                      and not r[0].startswith(PLUGIN_CODE + "900"))
            row.budget_notices = sum(1 for r in results if r[0].startswith(PLUGIN_CODE + "900")
                                     and "BudgetExceeded" in r[3])
        else:
            row.base_cpu, row.base_wall, row.base_gc = cpu, wall, gc_cpu
            row.flake8_results = len(results)

    rows = [FileRow(f.path, f.group, f.rel, f.lines) for f in files]
    started = time.perf_counter()
    if interleave:
        for i, row in enumerate(rows):
            one(row, base, False)
            one(row, full, True)
            _progress(progress, "A+B", i, len(rows), started)
    else:
        for i, row in enumerate(rows):
            one(row, base, False)
            _progress(progress, "A (flake8)", i, len(rows), started)
        started = time.perf_counter()
        for i, row in enumerate(rows):
            one(row, full, True)
            _progress(progress, "B (flake8+SFX)", i, len(rows), started)
    gc.callbacks.remove(gc_clock)
    import resource
    meta = {
        "flake8_version": flake8.__version__,
        "checker_plugins": names,
        "plugin_versions": plugins.versions_str(),
        "order": "interleaved" if interleave else "separate passes (A then B)",
        "budget_notices_enabled": notices,
        "lazy_import": lazy_import,
        "benchmark_process_maxrss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }
    return rows, meta


def _progress(enabled: bool, label: str, i: int, n: int, started: float) -> None:
    if enabled and ((i + 1) % 50 == 0 or i + 1 == n):
        print(f"  [{label}] {i + 1}/{n} files, {time.perf_counter() - started:.0f}s",
              file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Fresh processes: the environment without the plugin, and the child runner


def site_packages(python: str) -> str:
    return subprocess.check_output(
        [python, "-I", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        text=True).strip()


def _is_plugin_entry(name: str) -> bool:
    norm = name.lower().replace("-", "_")
    return PLUGIN_PACKAGE in norm


def ensure_noplugin_env(venv: str, plugin_python: str) -> str:
    """A venv that sees every distribution plugin_python sees, except the plugin's."""
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(python):
        base = subprocess.check_output(
            [plugin_python, "-I", "-c", "import sys; print(sys._base_executable)"], text=True).strip()
        print(f"speed.py: creating {venv} (from {base})", file=sys.stderr)
        subprocess.check_call([base, "-m", "venv", "--without-pip", venv])
    src, dst = site_packages(plugin_python), site_packages(python)
    if os.path.realpath(src) == os.path.realpath(dst):
        raise SystemExit(f"speed.py: {venv} is the plugin's own environment")
    wanted = {e for e in os.listdir(src) if not _is_plugin_entry(e)}
    for entry in os.listdir(dst):  # keep in sync with the plugin environment
        target = os.path.join(dst, entry)
        if os.path.islink(target) and (entry not in wanted or not os.path.exists(target)):
            os.unlink(target)
    for entry in sorted(wanted):
        target = os.path.join(dst, entry)
        if not os.path.lexists(target):
            os.symlink(os.path.join(src, entry), target)
    return python


def flake8_version(python: str, cwd: str) -> str:
    return subprocess.run([python, "-I", "-m", "flake8", "--version"], cwd=cwd, text=True,
                          capture_output=True).stdout.strip()


@dataclass
class ChildRun:
    wall: float
    cpu: float
    maxrss_mib: float
    returncode: int
    stderr: str = ""


# A tiny launcher forks and execs flake8 and reports that child's own rusage.  Not done from
# this process: Linux carries the pre-exec memory high-water mark over exec, and subprocess
# spawns with vfork/CLONE_VM, so a child of this (large) process would report *our* peak RSS.
_LAUNCHER = r"""
import os, sys, time
argv = sys.argv[1:]
t0 = time.perf_counter()
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1)
    try:
        os.execv(argv[0], argv)
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - t0
print(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, os.waitstatus_to_exitcode(status))
"""


def run_child(cmd: list[str], cwd: str, env: dict[str, str] | None = None) -> ChildRun:
    with tempfile.TemporaryFile(mode="w+") as err:
        proc = subprocess.run([sys.executable, "-I", "-S", "-c", _LAUNCHER, *cmd], cwd=cwd, env=env,
                              stdout=subprocess.PIPE, stderr=err, text=True, check=False)
        err.seek(0)
        stderr = err.read()
    try:
        wall, cpu, maxrss, code = proc.stdout.split()
    except ValueError:
        raise SystemExit(f"speed.py: launcher failed for {cmd[:4]}...: {stderr[-1000:]}")
    return ChildRun(float(wall), float(cpu), int(maxrss) / 1024, int(code), stderr[-2000:])


def flake8_cmd(python: str, paths: list[str]) -> list[str]:
    return [python, "-I", "-m", "flake8", "--isolated", "--jobs", "1", *paths]


def check_child(run: ChildRun, what: str) -> None:
    # flake8 exits 1 when it reports anything; a traceback or plugin failure is what matters.
    if run.returncode not in (0, 1) or "Traceback" in run.stderr or "failed" in run.stderr.lower():
        print(f"speed.py: warning: {what} exited {run.returncode}: {run.stderr[-500:]}", file=sys.stderr)


# The runs of the set with the cache between runs: an empty cache, then the same again, then
# every file edited (a copy of the set, a comment line appended to each file) with the cache as
# the first two left it: each file's own answer misses while the libraries it follows are as
# they were, what a lint gate run on a push or an editor's save pays.
CACHE_ROWS = ("cold cache", "warm cache", "edited")
EDIT = "# edited since the cache was filled\n"
NO_CACHE_ENV = "FLAKE8_STATICFX_NO_CACHE"


def run_whole_set(files: list[SourceFile], envs: dict[str, str], cwd: str, plugin_args: list[str],
                  repeat: int) -> dict:
    """Each row `repeat` times, the rows interleaved (the runs with the cache first on every
    other round, so that neither side always follows the other): the median CPU and wall, the
    highest peak RSS."""
    paths = [f.path for f in files]
    runs: dict[str, list[ChildRun]] = {label: [] for label in (*envs, *CACHE_ROWS)}
    cached = {name: value for name, value in os.environ.items() if name != NO_CACHE_ENV}

    def without_cache() -> None:
        for label, python in envs.items():
            run = run_child(flake8_cmd(python, (plugin_args if label == "flake8+SFX" else []) + paths), cwd)
            check_child(run, f"flake8 over the set ({label})")
            runs[label].append(run)

    def with_cache() -> None:
        # The plugin with the cache between runs (front/cache.py) on, in an empty directory: the
        # first run fills it, the second finds every file's answer there.
        with tempfile.TemporaryDirectory(prefix="speed-cache-") as directory, \
                tempfile.TemporaryDirectory(prefix="speed-edited-") as copy:
            for label, linted in zip(CACHE_ROWS, (paths, paths, edited_copy(paths, copy))):
                run = run_child(flake8_cmd(envs["flake8+SFX"], [*plugin_args, f"--staticfx-cache-dir={directory}",
                                                                *linted]), cwd, cached)
                check_child(run, f"flake8 over the set ({label})")
                runs[label].append(run)

    for round_ in range(repeat):
        for part in ((without_cache, with_cache) if round_ % 2 == 0 else (with_cache, without_cache)):
            part()
    return {label: {"cpu": statistics.median(r.cpu for r in rs), "wall": statistics.median(r.wall for r in rs),
                    "maxrss_mib": max(r.maxrss_mib for r in rs), "cpus": [r.cpu for r in rs]}
            for label, rs in runs.items()}


def edited_copy(paths: list[str], into: str) -> list[str]:
    """The files at `paths` copied below `into` (their layout below their common directory
    kept, so that a package's modules still import each other), each with EDIT appended."""
    root = os.path.commonpath([os.path.dirname(os.path.abspath(path)) for path in paths])
    copies = []
    for path in paths:
        copied = os.path.join(into, os.path.relpath(os.path.abspath(path), root))
        os.makedirs(os.path.dirname(copied), exist_ok=True)
        text = Path(path).read_bytes()
        Path(copied).write_bytes(text + (b"" if text.endswith(b"\n") or not text else b"\n") + EDIT.encode())
        copies.append(copied)
    return copies


def run_editor(targets: dict[str, SourceFile], envs: dict[str, str], cwd: str, plugin_args: list[str],
               repeat: int) -> dict:
    def command(label: str, python: str, path: str) -> list[str]:
        return flake8_cmd(python, (plugin_args if label == "flake8+SFX" else []) + [path])

    out = {}
    for kind, f in targets.items():
        runs: dict[str, list[ChildRun]] = {label: [] for label in envs}
        for label, python in envs.items():  # warm-up: page cache, .pyc files
            check_child(run_child(command(label, python, f.path), cwd), f"warm-up {label}")
        for i in range(repeat):
            order = list(envs.items()) if i % 2 == 0 else list(reversed(envs.items()))
            for label, python in order:
                run = run_child(command(label, python, f.path), cwd)
                check_child(run, f"editor run {label} on {f.path}")
                runs[label].append(run)
        out[kind] = {
            "path": f.path, "rel": f"{f.group}/{f.rel}", "lines": f.lines,
            **{label: {"wall": statistics.median(r.wall for r in rs),
                       "cpu": statistics.median(r.cpu for r in rs),
                       "maxrss_mib": max(r.maxrss_mib for r in rs),
                       "walls": [r.wall for r in rs], "cpus": [r.cpu for r in rs]}
               for label, rs in runs.items()},
        }
    return out


def editor_targets(files: list[SourceFile], per_group: bool) -> dict[str, SourceFile]:
    """The largest file and the one closest to 500 lines (the targets); with per_group, also
    the file closest to 500 lines of every other group (information only)."""
    def near(fs):
        return min(fs, key=lambda f: (abs(f.lines - TYPICAL_LINES), f.path))
    targets = {"largest": max(files, key=lambda f: (f.lines, f.path)), "typical": near(files)}
    if per_group:
        for group in sorted({f.group for f in files}):
            candidate = near([f for f in files if f.group == group])
            if candidate.path not in {t.path for t in targets.values()}:
                targets[f"typical {group}"] = candidate
    return targets


# ---------------------------------------------------------------------------
# --profile


def run_profile(files: list[SourceFile], top: int, out_path: str | None) -> str:
    import ast

    # Give the Checker the options flake8 would give it (parse_options), then call it directly.
    plugins, _, _ = flake8_setup([])
    checker_cls = next(p.obj for p in plugins.checkers.tree if p.entry_name == PLUGIN_CODE)
    import flake8_staticfx.analysis  # noqa: F401 - the lazy import is not what we profile
    import flake8_staticfx.front.report  # noqa: F401

    profiler = cProfile.Profile()
    c0 = time.process_time()
    for f in files:
        with open(f.path, "rb") as handle:
            source = handle.read().decode("utf-8")
        lines = source.splitlines(keepends=True)
        tree = ast.parse(source, f.path)
        profiler.enable()
        list(checker_cls(tree, f.path, lines).run())
        profiler.disable()
    elapsed = time.process_time() - c0
    if out_path:
        profiler.dump_stats(out_path)
    text = io.StringIO()
    text.write(f"# cProfile of the {PLUGIN_CODE} plugin alone over {len(files)} files "
               f"({elapsed:.1f}s CPU under the profiler)\n")
    for key, title in (("cumulative", "cumulative time"), ("tottime", "own (total) time")):
        text.write(f"\n## Top {top} by {title}\n\n```\n")
        stats = pstats.Stats(profiler, stream=text)
        stats.sort_stats(key).print_stats(top)
        text.write("```\n")
    # own time per module: which files of flake8_staticfx (or of astroid, ast, ...) the time is in
    stats = pstats.Stats(profiler)
    per_module: dict[str, float] = {}
    per_function: list[tuple[float, float, int, str]] = []
    total = 0.0
    for (filename, line, func), (_, ncalls, tottime, cumtime, _) in stats.stats.items():
        module = _module_label(filename)
        per_module[module] = per_module.get(module, 0.0) + tottime
        total += tottime
        if PLUGIN_PACKAGE in filename:
            per_function.append((cumtime, tottime, ncalls, f"{module}:{line}({func})"))
    text.write("\n## Own time per module\n\n| module | own s | share |\n|---|---:|---:|\n")
    for module, secs in sorted(per_module.items(), key=lambda kv: -kv[1])[:top]:
        text.write(f"| {module} | {secs:.2f} | {secs / total:.1%} |\n")
    text.write(f"\n## {PLUGIN_PACKAGE} functions by cumulative time\n\n"
               "| function | calls | cum s | own s |\n|---|---:|---:|---:|\n")
    for cum, own, calls, name in sorted(per_function, reverse=True)[:top]:
        text.write(f"| {name} | {calls} | {cum:.2f} | {own:.2f} |\n")
    return text.getvalue()


def _module_label(filename: str) -> str:
    if filename.startswith("~") or filename.startswith("<"):
        return "(builtins)"
    parts = Path(filename).parts
    for anchor in (PLUGIN_PACKAGE, "astroid", "flake8", "pyflakes"):
        if anchor in parts:
            i = len(parts) - 1 - parts[::-1].index(anchor)
            return "/".join(parts[i:])
    return Path(filename).name


# ---------------------------------------------------------------------------
# Report


def ms(x: float) -> str:
    return f"{x * 1000:.1f}"


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def render(result: dict) -> str:
    rows = [FileRow(**r) for r in result["files"]]
    out = io.StringIO()
    w = out.write
    groups: dict[str, list[FileRow]] = {}
    for r in rows:
        groups.setdefault(r.group, []).append(r)
    w("# flake8-staticfx speed\n\n")
    w(f"{len(rows)} files, {sum(r.lines for r in rows):,} lines ("
      + ", ".join(f"{g} {len(rs)}" for g, rs in groups.items()) + f"); selection: {result['selection']}.\n")
    meta = result["inprocess_meta"]
    w(f"flake8 {meta['flake8_version']}, checker plugins {', '.join(meta['checker_plugins'])}; "
      f"{meta['order']}; python {sys.version.split()[0]}, {os.cpu_count()} CPUs"
      + (f", load average {result['loadavg']}" if result.get("loadavg") else "")
      + (f" (at the end {result['loadavg_end']})" if result.get("loadavg_end") else "")
      + (f"; plugin options {' '.join(result['plugin_args'])}" if result.get("plugin_args") else "") + ".\n\n")

    base = summary([r.base_cpu for r in rows])
    full = summary([r.full_cpu for r in rows])
    sfx = summary([r.sfx_cpu for r in rows])
    rest = summary([r.full_cpu - r.sfx_cpu for r in rows])
    w("## 1. Per file, in one process (CPU ms, flake8 FileChecker.run_checks + style guide)\n\n")
    w("| | median | p95 | max | total s |\n|---|---:|---:|---:|---:|\n")
    for label, s in (("flake8 (pass A: F, E/W, C90)", base), ("SFX plugin alone (in pass B)", sfx),
                     ("flake8 + SFX (pass B)", full), ("pass B minus SFX", rest)):
        w(f"| {label} | {ms(s['median'])} | {ms(s['p95'])} | {ms(s['max'])} | {s['total']:.1f} |\n")
    ratio = full["total"] / base["total"] if base["total"] else float("nan")
    attrib = full["total"] / rest["total"] if rest["total"] else float("nan")
    per_file_ratio = [r.full_cpu / r.base_cpu for r in rows if r.base_cpu > 0]
    w(f"\n**Ratio (flake8+SFX)/flake8 = {ratio:.2f}x** (total CPU, pass B / pass A; target <= "
      f"{TARGET_RATIO}x: {verdict(ratio <= TARGET_RATIO)}). Same run by attribution, "
      f"B / (B - SFX's own time): {attrib:.2f}x. Per-file ratio: median "
      f"{statistics.median(per_file_ratio):.2f}x, p95 {pct(per_file_ratio, 95):.2f}x.\n")
    lazy = meta["lazy_import"]
    w(f"One-off per process (not in the table): the plugin's lazy import of its analysis modules, "
      f"{ms(lazy['cpu'])} ms CPU. Wall totals: pass A {sum(r.base_wall for r in rows):.1f}s, "
      f"pass B {sum(r.full_wall for r in rows):.1f}s. Files with a budget notice (SFX900 "
      f"BudgetExceeded): {sum(1 for r in rows if r.budget_notices)}"
      + ("" if meta["budget_notices_enabled"] else " (not measured)")
      + f"; plugin errors: {sum(1 for r in rows if r.error)}.\n")
    gc_a, gc_b, gc_s = (sum(r.base_gc for r in rows), sum(r.full_gc for r in rows), sum(r.sfx_gc for r in rows))
    w(f"Garbage collector CPU: pass A {gc_a:.2f}s; pass B {gc_b:.2f}s, of which {gc_s:.2f}s inside "
      f"SFX and {gc_b - gc_s:.2f}s in flake8's own checks.\n\n")

    w("| library | files | lines | flake8 s | SFX s | flake8+SFX s | ratio | SFX p95 ms | SFX max ms |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
    for g, rs in groups.items():
        b, f, s = (sum(r.base_cpu for r in rs), sum(r.full_cpu for r in rs), sum(r.sfx_cpu for r in rs))
        w(f"| {g} | {len(rs)} | {sum(r.lines for r in rs):,} | {b:.1f} | {s:.1f} | {f:.1f} | "
          f"{f / b if b else float('nan'):.2f}x | {ms(pct([r.sfx_cpu for r in rs], 95))} | "
          f"{ms(max(r.sfx_cpu for r in rs))} |\n")

    w("\n### Slowest 10 files for the plugin\n\n"
      "| file | lines | SFX ms | flake8 ms | (flake8+SFX)/flake8 | SFX diagnostics | budget hit |\n"
      "|---|---:|---:|---:|---:|---:|---|\n")
    for r in sorted(rows, key=lambda r: -r.sfx_cpu)[:10]:
        w(f"| {r.group}/{r.rel} | {r.lines:,} | {ms(r.sfx_cpu)} | {ms(r.base_cpu)} | "
          f"{r.full_cpu / r.base_cpu if r.base_cpu else float('nan'):.2f}x | {r.sfx_diagnostics} | "
          f"{'yes' if r.budget_notices else ''} |\n")
    errors = [r for r in rows if r.error]
    if errors:
        w("\nPlugin errors:\n" + "".join(f"- {r.group}/{r.rel}: {r.error}\n" for r in errors))

    whole = result.get("whole_set")
    if whole:
        b, p = whole["flake8"], whole["flake8+SFX"]
        w(f"\n## 2. Whole set, one fresh `flake8 --jobs 1` process (median CPU and wall of {result['repeat']}, "
          f"highest peak)\n\n"
          "| | CPU s | wall s | peak RSS MiB |\n|---|---:|---:|---:|\n")
        for label, run in (("flake8", b), ("flake8 + SFX, no cache", p), *((f"flake8 + SFX, {label}", whole[label])
                                                                        for label in CACHE_ROWS if label in whole)):
            w(f"| {label} | {run['cpu']:.2f} | {run['wall']:.2f} | {run['maxrss_mib']:.0f} |\n")
        w("\nCPU ratios to flake8: " + ", ".join(f"{label} {whole[key]['cpu'] / b['cpu']:.2f}x" for label, key in
                                                (("no cache", "flake8+SFX"), *((label, label) for label in CACHE_ROWS))
                                                if key in whole) + ".")
        w(f" **Peak memory with the plugin "
          f"{p['maxrss_mib']:.0f} MiB** (target < {TARGET_RSS_MIB:.0f} MiB: "
          f"{verdict(p['maxrss_mib'] < TARGET_RSS_MIB)}).\n")

    editor = result.get("editor")
    if editor:
        w(f"\n## 3. Editor latency: fresh `flake8` on one file (median of {result['editor_repeat']})\n\n"
          "| file | lines | flake8 wall s | flake8 CPU s | +SFX wall s | +SFX CPU s | "
          "CPU ratio | wall ratio | target |\n|---|---:|---:|---:|---:|---:|---:|---:|---|\n")
        for kind, e in editor.items():
            b, p = e["flake8"], e["flake8+SFX"]
            cr, wr = p["cpu"] / b["cpu"], p["wall"] / b["wall"]
            w(f"| {kind}: {e['rel']} | {e['lines']:,} | {b['wall']:.2f} | {b['cpu']:.2f} | "
              f"{p['wall']:.2f} | {p['cpu']:.2f} | {cr:.2f}x | {wr:.2f}x | "
              + (f"<= {TARGET_EDITOR}x (CPU): {verdict(cr <= TARGET_EDITOR)}" if kind in EDITOR_TARGETS
                 else "(information)") + " |\n")
        w(f"\nBaseline environment: {result['noplugin_env']} (plugin env: {result['plugin_env']}).\n")

    w("\n## Targets\n\n")
    w(f"- flake8+SFX <= {TARGET_RATIO}x flake8 (CPU, same run): {ratio:.2f}x -> {verdict(ratio <= TARGET_RATIO)}\n")
    if editor:
        for kind, e in ((k, e) for k, e in editor.items() if k in EDITOR_TARGETS):
            cr = e["flake8+SFX"]["cpu"] / e["flake8"]["cpu"]
            wr = e["flake8+SFX"]["wall"] / e["flake8"]["wall"]
            w(f"- fresh process, {kind} file ({e['lines']:,} lines) <= {TARGET_EDITOR}x: CPU {cr:.2f}x, "
              f"wall {wr:.2f}x -> {verdict(cr <= TARGET_EDITOR)}\n")
    if whole:
        rss = whole["flake8+SFX"]["maxrss_mib"]
        w(f"- peak memory < {TARGET_RSS_MIB:.0f} MiB: {rss:.0f} MiB -> {verdict(rss < TARGET_RSS_MIB)}\n")
    return out.getvalue()


# ---------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", metavar="DIR",
                        help="directories of .py files (or files); default: the libraries' model files")
    parser.add_argument("--limit", type=int, help="at most N files")
    parser.add_argument("--sample", action="store_true",
                        help="pick the --limit files (default 300) by a stable hash instead of the first N")
    parser.add_argument("--json", metavar="OUT", help="write all numbers as JSON ('-' for stdout)")
    parser.add_argument("--profile", action="store_true",
                        help="only: cProfile the plugin over the file set, print the top functions")
    parser.add_argument("--profile-top", type=int, default=25)
    parser.add_argument("--profile-out", metavar="FILE", help="also dump the pstats data")
    parser.add_argument("--interleave", action="store_true",
                        help="alternate the baseline and the plugin run per file (default: two passes)")
    parser.add_argument("--noplugin-venv", default=DEFAULT_NOPLUGIN_VENV,
                        help="environment without the plugin, created if missing (default: %(default)s)")
    parser.add_argument("--editor-repeat", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=1, help="run the whole set N times (median)")
    parser.add_argument("--libraries-from", metavar="SITE",
                        help="without DIR arguments: the libraries' model files in this site-packages "
                             "(default: found by find_spec from this interpreter)")
    parser.add_argument("--library-path", metavar="SITE",
                        help="the plugin's --staticfx-library-path, in every run (user files that call "
                             "libraries installed elsewhere, e.g. benchmarks/library_users)")
    parser.add_argument("--no-whole-set", action="store_true", help="skip the fresh-process run over the set")
    parser.add_argument("--no-editor", action="store_true", help="skip the editor-latency runs")
    parser.add_argument("--no-editor-per-library", action="store_true",
                        help="editor runs only on the largest and the ~500-line file, not also on "
                             "each library's ~500-line file")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    args = parser.parse_args(argv)

    if args.paths:
        files, roots, origin = argument_files(args.paths), {}, "arguments"
    else:
        files, roots = library_files(args.libraries_from)
        origin = "libraries " + ", ".join(f"{k}={v}" for k, v in roots.items())
        if not files:
            parser.error("none of " + ", ".join(n for n, _ in LIBRARIES) + " is importable as "
                         "source here (importlib.util.find_spec); pass DIR arguments, or put the "
                         "unpacked libraries on PYTHONPATH")
    if not files:
        parser.error("no .py files found")
    for f in files:
        f.lines = count_lines(f.path)
    chosen = select(files, args.limit, args.sample)
    selection = (f"{len(chosen)} of {len(files)} ({'stable-hash sample' if args.sample else 'first N'})"
                 if len(chosen) < len(files) else f"all {len(files)}")

    if args.profile:
        print(run_profile(chosen, args.profile_top, args.profile_out))
        return 0

    os.environ[NO_CACHE_ENV] = "1"  # the analysis is measured, not what a user's cache keeps (but in CACHE_ROWS)
    plugin_args = [f"--staticfx-library-path={args.library_path}"] if args.library_path else []
    result: dict = {"selection": selection, "origin": origin, "python": sys.executable, "repeat": args.repeat,
                    "plugin_args": plugin_args,
                    "loadavg": " ".join(f"{x:.1f}" for x in os.getloadavg())}
    progress = not args.quiet
    if progress:
        print(f"speed.py: {selection} files from {origin}", file=sys.stderr)
    rows, meta = run_inprocess(chosen, args.interleave, progress, plugin_args)
    result["inprocess_meta"] = meta
    result["files"] = [asdict(r) for r in rows]

    if not (args.no_whole_set and args.no_editor):
        os.makedirs(os.path.dirname(os.path.abspath(args.noplugin_venv)), exist_ok=True)
        noplugin = ensure_noplugin_env(args.noplugin_venv, sys.executable)
        envs = {"flake8": noplugin, "flake8+SFX": sys.executable}
        with tempfile.TemporaryDirectory(prefix="speed-cwd-") as cwd:
            versions = {label: flake8_version(py, cwd) for label, py in envs.items()}
            if PLUGIN_DIST in versions["flake8"] or PLUGIN_DIST not in versions["flake8+SFX"]:
                raise SystemExit(f"speed.py: environments are not as expected: {versions}")
            result["noplugin_env"], result["plugin_env"] = noplugin, sys.executable
            result["flake8_versions"] = versions
            if not args.no_whole_set:
                if progress:
                    print(f"speed.py: fresh flake8 --jobs 1 over {len(chosen)} files, 5 rows x {args.repeat}",
                          file=sys.stderr)
                result["whole_set"] = run_whole_set(chosen, envs, cwd, plugin_args, args.repeat)
            if not args.no_editor:
                if progress:
                    print("speed.py: editor latency runs", file=sys.stderr)
                result["editor_repeat"] = args.editor_repeat
                targets = editor_targets(files, not args.no_editor_per_library)
                result["editor"] = run_editor(targets, envs, cwd, plugin_args, args.editor_repeat)

    result["loadavg_end"] = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(render(result))
    if args.json:
        text = json.dumps(result, indent=1)
        if args.json == "-":
            print(text)
        else:
            Path(args.json).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
