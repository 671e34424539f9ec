#!/usr/bin/env python
"""The package oracle (issue 14): does the linter follow a model into the libraries it calls?

User-side model files under benchmarks/package_cases/<package>/ call research packages the way
their READMEs show.  Set up once, record dynamo's truth with the package venv's interpreter,
then score the linter (from the repo root):

    benchmarks/package_oracle_setup.sh                         # .oracle/pkgvenv (pinned), .venv
    .oracle/pkgvenv/bin/python benchmarks/package_oracle.py record [-j 2] [--packages a,b] [--truth OUT]
    python3 benchmarks/package_oracle.py score [--follow] [--library-roots] [--json out.json]

record: every case of every case file runs in eval mode and in train mode, each in a fresh
interpreter (dynamo's caches are process-wide), with tests/oracle/record_truth.py's machinery:
an eager run under sys.settrace, then torch.compile(model, backend="eager") with the default
dynamo config, collecting the "graph_breaks" log records.  The only change is which files count:
record_truth keeps frames of its cases directory; here the case files (named relative to the
repo, "benchmarks/package_cases/zuko/flows.py") AND the files of installed packages other than
torch (named relative to site-packages, "zuko/flows/autoregressive.py") are kept, in the break
stacks and in the executed lines.  Dynamo's Python-3.11 line table is fixed as in
benchmarks/library_oracle.py (patch_linetable).  Output: benchmarks/package_cases/truth.json.

score: lints with flake8 --select=SFX --isolated from the linter venv (.venv, which does not have
the packages: --follow passes --staticfx-library-path=<pkgvenv site-packages> so it can find them):
  user side     the case files;
  library side  the package files that ran in some case (with --library-roots,
                --staticfx-library-roots: every public function is a compile root).
Neither option exists in today's linter: without them the score is the baseline.
A diagnostic is judged at statement granularity (tests/oracle/scoring.py's SourceFile):
  correct      some break's stack has a frame in that statement (the user's call site counts):
               a break there or below the call there; "wrong site" counts the correct ones whose
               message names an inner location ("... at pkg/mod.py:LINE") on no such stack;
  false alarm  the statement ran eagerly and no break is there or below it;
  no verdict   it never ran (library roots no model calls), it follows a break after which
               dynamo gave up on the whole frame, or it ran only in a case whose compile crashed.
A break (unique stack and reason, eval and train merged) is hit by a diagnostic on any frame of
its stack; user side by the case files' diagnostics, library side by that library's own.
"inner" counts the hits at the break's innermost frame in scope (the construct's own line, not
only a caller's); --verbose lists the others as "AT A CALLER".
Rows per package; HELD_OUT packages are printed apart.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "oracle"))
sys.path.insert(0, HERE)
import record_truth  # noqa: E402  (the case-corpus oracle: its worker pieces are reused)
from scoring import DIAGNOSTIC, WAITING, SourceFile  # noqa: E402

CASES_DIR = os.path.join(HERE, "package_cases")
TRUTH = os.path.join(CASES_DIR, "truth.json")
PKG_VENV = os.environ.get("PACKAGE_ORACLE_VENV", os.path.join(REPO, ".oracle", "pkgvenv"))
FLAKE8 = os.environ.get("STATICFX_FLAKE8", os.path.join(REPO, ".venv", "bin", "flake8"))
MODES = ("eval", "train")
# chosen before any result was seen; their rows are printed apart
HELD_OUT = ("torchode", "zuko")
# installed top-level names that are not "libraries the model calls": torch itself (the linter
# never follows into it, dynamo has its own rules there) and the numeric stack underneath
NOT_LIBRARIES = {"torch", "functorch", "torchgen", "triton", "numpy", "scipy", "sympy", "mpmath",
                 "networkx", "sklearn", "joblib", "narwhals", "setuptools", "pip", "_distutils_hack",
                 "pkg_resources", "typing_extensions.py", "filelock", "fsspec", "jinja2", "markupsafe"}


def site_packages(venv=PKG_VENV):
    """The venv's site-packages, found by path (the scorer need not run inside that venv)."""
    found = sorted(glob.glob(os.path.join(venv, "lib", "python3*", "site-packages")))
    if not found:
        raise SystemExit(f"no site-packages under {venv}: run benchmarks/package_oracle_setup.sh")
    return os.path.realpath(found[-1])


def case_files(packages=None):
    """Repo-relative paths of the case files (those with a top-level CASES), per package dir."""
    out = []
    for pkg in sorted(os.listdir(CASES_DIR)):
        folder = os.path.join(CASES_DIR, pkg)
        if not os.path.isdir(folder) or (packages and pkg not in packages):
            continue
        for name in record_truth.case_files(folder):
            out.append(os.path.relpath(os.path.join(folder, name), REPO))
    return out


def package_of_case(case_file):
    """benchmarks/package_cases/zuko/flows.py -> zuko"""
    return case_file.split("/")[2]


# ---------------------------------------------------------------------------------------------
# record (runs in the package venv)


class PackageLocator(record_truth._Locator):
    """Names the case files relative to the repo and installed libraries relative to
    site-packages; every other file (torch, stdlib) is outside, as record_truth's are."""

    def __init__(self, site):
        super().__init__(CASES_DIR)
        self.repo = os.path.realpath(REPO)
        self.site = site

    def case_name(self, path):
        if path not in self._cache:
            name = None
            if os.path.isabs(path):
                real = os.path.realpath(path)
                if real.startswith(self.cases_dir + os.sep):
                    name = os.path.relpath(real, self.repo)
                elif real.startswith(self.site + os.sep):
                    name = os.path.relpath(real, self.site)
                    if name.split(os.sep)[0] in NOT_LIBRARIES:
                        name = None
            self._cache[path] = name.replace(os.sep, "/") if name else None
        return self._cache[path]


def _in_mode(make_model, mode):
    def make():
        model = make_model()
        if hasattr(model, "train"):
            model.train(mode == "train")
        return model
    return make


def _library_entries(make_model, make_inputs, locator):
    """In a forked child: run the case eagerly under sys.setprofile and record, for every library
    function called from a case file (torch and stdlib frames in between skipped, as
    nn.Module.__call__), the case-file line of the call: [library file, first line, last line,
    case file, call line].  The scorer puts that call site under a break stack that starts in the
    library (dynamo compiled the callee as a frame of its own and logged no caller)."""
    def run() -> list:
        entries = set()

        def profile(frame, event, arg):
            if event != "call":
                return
            name = locator.case_name(frame.f_code.co_filename)
            if name is None or name.startswith("benchmarks/"):
                return
            caller = frame.f_back
            while caller is not None and locator.case_name(caller.f_code.co_filename) is None:
                caller = caller.f_back
            if caller is not None:
                caller_name = locator.case_name(caller.f_code.co_filename)
                if caller_name.startswith("benchmarks/"):
                    lines = [ln for _, _, ln in frame.f_code.co_lines() if ln]
                    entries.add((name, frame.f_code.co_firstlineno, max(lines, default=0),
                                 caller_name, caller.f_lineno))

        try:
            import torch
            record_truth._seed_everything()
            model = make_model()
            inputs = make_inputs()
            with torch.compiler.set_stance("force_eager"):
                sys.setprofile(profile)
                try:
                    record_truth._unwrap_compiled(model)(*inputs)
                finally:
                    sys.setprofile(None)
        except BaseException:  # noqa: BLE001 - the line trace reports the eager error
            pass
        return sorted(entries)

    return record_truth.in_child(run, [])


def worker(case_file, index, mode, out_path):
    """One case in one mode: record_truth's eager line trace and graph-break capture."""
    import logging

    import torch
    import torch._dynamo

    from library_oracle import patch_linetable

    torch.set_num_threads(1)
    locator = PackageLocator(site_packages(sys.prefix))
    registry = record_truth._registry_by_title()
    path = os.path.join(REPO, case_file)
    module = record_truth._import_case(os.path.dirname(path), os.path.basename(path))
    name, make_model, make_inputs = module.CASES[index]
    make_model = _in_mode(make_model, mode)
    result = {"name": name, "index": index, "mode": mode}
    result.update(record_truth._eager_lines(CASES_DIR, make_model, make_inputs, locator))
    result["library_entries"] = _library_entries(make_model, make_inputs, locator)

    records = []

    class Collect(logging.Handler):
        def emit(self, record):
            exc = record.exc_info[1] if record.exc_info else None
            records.append((record.getMessage(), exc))

    result["linetable_fixed"] = os.environ.get("ORACLE_NO_LINETABLE_FIX") != "1" and patch_linetable()
    torch._dynamo.reset()
    record_truth.log_every_graph_break(torch)
    handler = Collect(level=logging.DEBUG)
    logging.getLogger("torch._dynamo").addHandler(handler)
    result["compile_error"] = None
    try:
        record_truth._seed_everything()
        model = make_model()
        inputs = make_inputs()
        torch.compile(record_truth._unwrap_compiled(model), backend="eager")(*inputs)
    except BaseException as exc:  # noqa: BLE001 - recorded; the case is then looked at by hand
        result["compile_error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
    finally:
        logging.getLogger("torch._dynamo").removeHandler(handler)
    breaks = [b for b in (record_truth.parse_record(m, e, locator, registry) for m, e in records) if b]
    result["breaks"] = record_truth.merge_breaks(breaks)
    with open(out_path, "w") as handle:
        json.dump(result, handle)


def run_one(job, timeout):
    case_file, index, mode = job
    fd, out_path = tempfile.mkstemp(prefix="sfx_pkg_", suffix=".json")
    os.close(fd)
    cmd = [sys.executable, os.path.abspath(__file__), "worker", case_file, str(index), mode, out_path]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              env=record_truth._clean_env(), cwd=REPO)
        try:
            with open(out_path) as handle:
                return json.load(handle)
        except (OSError, ValueError):
            tail = (proc.stderr or "").strip().splitlines()[-1:] or [""]
            return {"index": index, "mode": mode, "worker_error": f"rc={proc.returncode} {tail[0][:300]}"}
    except subprocess.TimeoutExpired:
        return {"index": index, "mode": mode, "worker_error": f"timeout after {timeout}s"}
    finally:
        os.unlink(out_path)


def record(args):
    import importlib.metadata as md
    files = case_files(args.packages.split(",") if args.packages else None)
    jobs = []
    for case_file in files:
        count = record_truth.number_of_cases(os.path.join(REPO, case_file))
        jobs += [(case_file, i, mode) for i in range(count) for mode in MODES]
    print(f"recording {len(jobs)} runs of {len(files)} case files, {args.jobs} at a time", file=sys.stderr)
    started = time.monotonic()

    def one(job):
        result = run_one(job, args.timeout)
        flag = " ERROR" if result.get("worker_error") or result.get("eager_error") else ""
        print(f"  {job[0]}#{job[1]} {job[2]}: {len(result.get('breaks', []))} break(s){flag} "
              f"({time.monotonic() - started:.0f} s)", file=sys.stderr, flush=True)
        return result

    with ThreadPoolExecutor(max_workers=max(1, min(args.jobs, 2))) as pool:
        results = list(pool.map(one, jobs))
    previous = {}
    kept_from = args.truth if os.path.exists(args.truth) else TRUTH
    if args.packages and os.path.exists(kept_from):  # re-recording some packages: keep the others
        with open(kept_from) as handle:
            previous = json.load(handle)["files"]
    by_file = {name: entry for name, entry in previous.items() if name in case_files()}
    for case_file in files:
        by_file[case_file] = {"cases": []}
    for (case_file, _, _), result in zip(jobs, results):
        by_file[case_file]["cases"].append(result)
    versions = {}
    for line in open(os.path.join(HERE, "package_oracle_requirements.txt")):
        line = line.split("#")[0].strip()
        if "==" in line:
            dist = line.split("==")[0]
            versions[dist] = md.version(dist)
    document = {"torch": md.version("torch"), "python": f"{sys.version_info.major}.{sys.version_info.minor}",
                "backend": "eager", "modes": list(MODES), "versions": versions,
                "files": {name: by_file[name] for name in sorted(by_file)}}
    with open(args.truth, "w") as handle:
        handle.write(json.dumps(document, indent=1, sort_keys=True) + "\n")
    for name, entry in sorted(by_file.items()):
        for case in entry["cases"]:
            problem = case.get("worker_error") or case.get("eager_error") or case.get("compile_error")
            if problem:
                print(f"ERROR {name}::{case.get('name')} {case.get('mode')}: {problem}", file=sys.stderr)
    print(f"wrote {os.path.relpath(args.truth, REPO)}", file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# score (any python: reads the truth, runs flake8 from the linter venv)


class Evidence:
    """The truth of one group of case files: breaks (unique stack + reason), executed lines,
    and lines dynamo never judged, every line widened to its statement."""

    def __init__(self, document, case_file_names, site):
        self.site = site
        self.sources = {}
        self.breaks = {}                    # (title, stack tuple) -> break
        self.executed = defaultdict(set)    # file -> lines
        self.unobservable = defaultdict(set)
        self.errors = []
        for case_file in case_file_names:
            for case in document["files"][case_file]["cases"]:
                label = f"{case_file}::{case.get('name')}.{case.get('mode')}"
                for key in ("worker_error", "eager_error"):
                    if case.get(key):
                        self.errors.append(f"{label}: {case[key]}")
                if case.get("compile_error"):  # dynamo crashed: it judged none of the lines
                    self.errors.append(f"{label}: compile error {case['compile_error'].splitlines()[0][:160]}")
                    continue
                for name, lines in (case.get("executed") or {}).items():
                    for line in record_truth.expand_lines(lines):
                        self.executed[name] |= self.src(name).statement_lines(line)
                stacks = stitched_stacks([[(n, x) for n, x, _ in b["stack"]] for b in case.get("breaks", [])],
                                         case.get("library_entries", []))
                for brk, stack in zip(case.get("breaks", []), stacks):
                    if not stack:
                        self.errors.append(f"{label}: a break outside case and library files: "
                                           f"{brk['title']} ({brk.get('origin')})")
                        continue
                    entry = self.breaks.setdefault((brk["title"], stack), {
                        "title": brk["title"], "gb": brk.get("gb"), "stack": stack, "cases": set()})
                    entry["cases"].add(label)
                    if brk.get("frame_skipped"):  # as tests/oracle/scoring.py: every frame
                        for name, line in stack:
                            self.unobservable[name] |= self.src(name).rest_of_function(line)

    def path(self, name):
        return os.path.join(REPO, name) if name.startswith("benchmarks/") else os.path.join(self.site, name)

    def src(self, name):
        if name not in self.sources:
            self.sources[name] = SourceFile(self.path(name))
        return self.sources[name]

    def on_stack(self, brk, name, line):
        return any(f == name and self.src(name).statement(line) == self.src(name).statement(x)
                   for f, x in brk["stack"])

    def at_innermost(self, brk, name, line, in_scope):
        """Is (name, line) in the statement of the break's innermost frame in scope: the
        construct's own line, not a caller's?"""
        own = [(f, x) for f, x in brk["stack"] if in_scope(f)]
        return bool(own) and own[-1][0] == name and in_scope(name) \
            and self.src(name).statement(line) == self.src(name).statement(own[-1][1])

    def judge(self, name, line, message):
        """-> ("correct" | "false alarm" | "no verdict", named site right).  The issue's rule:
        correct when a break is at that statement or below the call there.  A message that
        names an inner location ("... at pkg/mod.py:LINE") has it right when that location is
        on the stack of such a break too; a wrong one is counted apart, not as a false alarm."""
        named = [(p, int(n)) for p, n in INNER_LOCATION.findall(message)]
        through = [b for b in self.breaks.values() if self.on_stack(b, name, line)]
        if through:
            right = any(all(any(f.endswith(p) and self.on_stack(b, f, n) for f, _ in b["stack"])
                            for p, n in named) for b in through)
            return "correct", right
        lines = self.src(name).statement_lines(line)
        if lines & self.executed.get(name, set()) and not lines & self.unobservable.get(name, set()):
            return "false alarm", False
        return "no verdict", False


def stitched_stacks(stacks, entries=()):
    """Give back the callers dynamo's log leaves out.  After a break inside an inlined call,
    dynamo compiles the callee as a frame of its own, and a break there is logged with a stack
    that starts at that library frame: the user's call site is missing.  Another break of the
    same run whose stack passes through that same outermost frame (file and line) has the
    callers; its prefix is put in front (repeated while it helps).  A stack still starting in a
    library gets the case-file call of that library function recorded in the eager run
    (`entries`, see _library_entries).  -> tuples of (file, line)."""
    stacks = [list(s) for s in stacks]
    for stack in stacks:
        if stack and not stack[0][0].startswith("benchmarks/"):
            name, line = stack[0]
            calls = sorted((case, at) for lib, first, last, case, at in entries
                           if lib == name and first <= line <= last)
            if calls:
                stack.insert(0, tuple(calls[0]))
    for _ in range(8):
        changed = False
        for stack in stacks:
            if not stack:
                continue
            for other in stacks:
                if other is not stack and stack[0] in other[1:]:
                    cut = other.index(stack[0])
                    stack[:0] = other[:cut]
                    changed = True
                    break
        if not changed:
            break
    return [tuple(s) for s in stacks]


INNER_LOCATION = re.compile(r" at (\S+?\.py):(\d+)\b")


def run_flake8(paths, extra):
    """flake8 --select=SFX --isolated on `paths` -> [(name, line, code, message)], names as
    the truth writes them (repo-relative case files, site-relative library files)."""
    if not paths:
        return []
    cmd = [FLAKE8, "--select=SFX", "--isolated", *extra, *paths]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
    if proc.returncode not in (0, 1) or proc.stderr.strip():
        raise SystemExit(f"flake8 failed (rc={proc.returncode}): {' '.join(cmd[:6])} ...\n{proc.stderr[-2000:]}")
    out = []
    for raw in proc.stdout.splitlines():
        match = DIAGNOSTIC.match(raw)
        if match and not WAITING.search(match["msg"]):  # a to-do item is not scored (scoring.py)
            out.append((match["path"], int(match["line"]), match["code"], match["msg"]))
    return out


def score_rows(label, evidence, diagnostics, in_scope, own_frames_only=False):
    """One table row: breaks with a frame in scope, hits by in-scope diagnostics, verdicts.
    own_frames_only (library rows): breaks that differ only outside the scope, e.g. one library
    site reached from two case files, count once."""
    judged = [(d, evidence.judge(d[0], d[1], d[3])) for d in diagnostics if in_scope(d[0])]
    verdicts = [(d, v) for d, (v, _) in judged]
    wrong_site = sum(1 for _, (v, right) in judged if v == "correct" and not right)
    breaks = [b for b in evidence.breaks.values() if any(in_scope(f) for f, _ in b["stack"])]
    if own_frames_only:
        unique = {}
        for b in breaks:
            own = tuple(fr for fr in b["stack"] if in_scope(fr[0]))
            unique.setdefault((b["title"], own), dict(b, stack=own))
        breaks = list(unique.values())
    hit = [b for b in breaks if any(evidence.on_stack(b, d[0], d[1]) for d in diagnostics if in_scope(d[0]))]
    inner = [b for b in hit if any(evidence.at_innermost(b, d[0], d[1], in_scope) for d in diagnostics)]
    count = {v: sum(1 for _, x in verdicts if x == v) for v in ("correct", "false alarm", "no verdict")}
    return {"scope": label, "breaks": len(breaks), "hits": len(hit), "inner": len(inner),
            "diagnostics": len(verdicts), "wrong site": wrong_site, **count, "verdicts": verdicts,
            "missed": [b for b in breaks if b not in hit], "at a caller": [b for b in hit if b not in inner]}


def render(rows):
    head = (f"{'scope':44s} {'breaks':>6s} {'hits':>4s} {'inner':>5s} {'diags':>5s} {'correct':>7s} {'wrong site':>10s} "
            f"{'false':>5s} {'no verdict':>10s} {'precision':>9s} {'recall':>6s}")
    out = [head, "-" * len(head)]
    for r in rows:
        if r is None:
            out.append("-" * len(head))
            continue
        judged = r["correct"] + r["false alarm"]
        precision = f"{r['correct'] / judged:.3f}" if judged else "-"
        recall = f"{r['hits'] / r['breaks']:.3f}" if r["breaks"] else "-"
        out.append(f"{r['scope']:44s} {r['breaks']:6d} {r['hits']:4d} {r['inner']:5d} {r['diagnostics']:5d} "
                   f"{r['correct']:7d} {r['wrong site']:10d} {r['false alarm']:5d} {r['no verdict']:10d} "
                   f"{precision:>9s} {recall:>6s}")
    return "\n".join(out)


def total(label, rows):
    keys = ("breaks", "hits", "inner", "diagnostics", "correct", "wrong site", "false alarm", "no verdict")
    return {"scope": label, **{k: sum(r[k] for r in rows) for k in keys},
            "verdicts": [v for r in rows for v in r["verdicts"]], "missed": [m for r in rows for m in r["missed"]],
            "at a caller": [m for r in rows for m in r["at a caller"]]}


def score(args):
    if not os.path.exists(FLAKE8):
        raise SystemExit(f"no flake8 at {FLAKE8}: run benchmarks/package_oracle_setup.sh (or set STATICFX_FLAKE8)")
    site = site_packages()
    with open(args.truth) as handle:
        document = json.load(handle)
    files = sorted(document["files"])
    packages = sorted({package_of_case(f) for f in files})
    user_flags = [f"--staticfx-library-path={site}"] if args.follow else []
    library_flags = ["--staticfx-library-roots"] if args.library_roots else []
    print(f"user side: {FLAKE8} --select=SFX --isolated {' '.join(user_flags)} <{len(files)} case files>")
    user_diags = run_flake8(files, user_flags)
    everything = Evidence(document, files, site)
    library_files = sorted(n for n in everything.executed if not n.startswith("benchmarks/"))
    print(f"library side: {FLAKE8} --select=SFX --isolated {' '.join(library_flags)} "
          f"<{len(library_files)} library files that ran, in {site}>")
    raw = run_flake8([os.path.join(site, n) for n in library_files], library_flags)
    library_diags = [(os.path.relpath(p, site), line, code, msg) for p, line, code, msg in raw]

    user_rows, library_rows = {}, {}
    for pkg in packages:
        mine = [f for f in files if package_of_case(f) == pkg]
        evidence = Evidence(document, mine, site)
        user_rows[pkg] = score_rows(f"user {pkg} ({len(mine)} files)", evidence, user_diags,
                                    lambda name, mine=mine: name in mine)
    libraries = sorted({n.split("/")[0].removesuffix(".py") for n in library_files})
    for lib in libraries:
        ran = [n for n in library_files if n.split("/")[0].removesuffix(".py") == lib]
        library_rows[lib] = score_rows(f"library {lib} ({len(ran)} files ran)", everything, library_diags,
                                       lambda name, ran=ran: name in ran, own_frames_only=True)
    held_user = [r for p, r in user_rows.items() if p in HELD_OUT]
    open_user = [r for p, r in user_rows.items() if p not in HELD_OUT]
    held_lib = [r for p, r in library_rows.items() if p in HELD_OUT]
    open_lib = [r for p, r in library_rows.items() if p not in HELD_OUT]
    table = (open_user + [total("USER SIDE, not held out", open_user), None]
             + [dict(r, scope="HELD OUT " + r["scope"]) for r in held_user]
             + [total("USER SIDE, held out", held_user), None]
             + open_lib + [total("LIBRARY SIDE, not held out", open_lib), None]
             + [dict(r, scope="HELD OUT " + r["scope"]) for r in held_lib]
             + [total("LIBRARY SIDE, held out", held_lib)])
    print()
    print(render(table))
    for error in everything.errors:
        print(f"TRUTH ERROR {error}")
    if not args.quiet:
        for row in list(user_rows.values()) + list(library_rows.values()):
            for (name, line, code, msg), verdict in row["verdicts"]:
                if verdict != "correct" or args.verbose:
                    print(f"{verdict.upper():12s} {name}:{line} {code} {msg[:160]}")
            for kind in ("missed", "at a caller") if args.verbose else ():
                for brk in row[kind]:
                    where = " <- ".join(f"{f}:{n}" for f, n in reversed(brk["stack"]))
                    print(f"{kind.upper():12s} [{brk['gb']} {brk['title'][:70]}] {where}")
    if args.json:
        def plain(r):
            return {k: v for k, v in r.items() if k not in ("verdicts", "missed", "at a caller")}
        with open(args.json, "w") as handle:
            json.dump({"follow": args.follow, "library_roots": args.library_roots,
                       "rows": [plain(r) for r in table if r is not None],
                       "diagnostics": [{"file": d[0], "line": d[1], "code": d[2], "message": d[3], "verdict": v}
                                       for r in list(user_rows.values()) + list(library_rows.values())
                                       for d, v in r["verdicts"]]}, handle, indent=1)


def breaks_listing(args):
    """Every recorded break with its full stack, innermost first, per package."""
    with open(args.truth) as handle:
        document = json.load(handle)
    evidence = Evidence(document, sorted(document["files"]), site_packages())
    for brk in sorted(evidence.breaks.values(), key=lambda b: b["stack"]):
        print(f"[{brk['gb']}] {brk['title'][:90]}  ({', '.join(sorted(brk['cases']))})")
        for name, line in reversed(brk["stack"]):
            print(f"    {name}:{line}  {evidence.src(name).source(line)[:100]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="run the cases under dynamo (package venv's python)")
    rec.add_argument("--packages", help="comma list of package dirs to re-record (default: all)")
    rec.add_argument("-j", "--jobs", type=int, default=2)
    rec.add_argument("--timeout", type=float, default=600)
    sc = sub.add_parser("score", help="lint and score against the truth")
    sc.add_argument("--follow", action="store_true",
                    help="pass --staticfx-library-path=<package venv's site-packages> (issue 14's option)")
    sc.add_argument("--library-roots", action="store_true",
                    help="lint the library files with --staticfx-library-roots (issue 14's option)")
    sc.add_argument("--json", help="write the rows and every judged diagnostic here")
    sc.add_argument("--quiet", action="store_true", help="the table only")
    sc.add_argument("--verbose", action="store_true", help="also the correct diagnostics and missed breaks")
    br = sub.add_parser("breaks", help="list the recorded breaks with their stacks")
    for p in (sc, br):
        p.add_argument("--truth", default=TRUTH, help="truth file (default: %(default)s)")
    rec.add_argument("--truth", default=TRUTH,
                     help="write the truth here (default: %(default)s, the tracked file); record into "
                          "a copy and diff it to check that the tracked truth reproduces")
    wk = sub.add_parser("worker")
    wk.add_argument("case_file")
    wk.add_argument("index", type=int)
    wk.add_argument("mode", choices=MODES)
    wk.add_argument("out_path")
    args = ap.parse_args()
    if args.command == "worker":
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # cases may print; keep the protocol clean
        worker(args.case_file, args.index, args.mode, args.out_path)
    elif args.command == "record":
        record(args)
    elif args.command == "score":
        score(args)
    else:
        breaks_listing(args)


if __name__ == "__main__":
    main()
