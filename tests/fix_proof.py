#!/usr/bin/env python
"""Proof of `fix` on the case corpus: eager outputs unchanged, the rewritten breaks gone.

    python tests/fix_proof.py [--keep DIR] [FILE.py ...]

1. Copies tests/cases twice into a temporary directory (`cases_original/`, `cases/`) and runs
   `fix` on every file of `cases/` (in-process, as `python -m flake8_staticfx fix` does).
2. In one child interpreter, for every case of every changed file: seeds the RNGs as the
   recorder does, builds the original and the fixed model, runs both eagerly on the same
   inputs and compares the outputs (tensors with torch.allclose on floats, 0-d tensors and
   Python numbers as floats, containers element by element); then compiles both with a
   counting backend and records how many graphs dynamo produced.
3. Records the fixed files with the project's oracle (`tests/oracle/record_truth.py --show`)
   and compares with tests/cases/truth.json through a line map of each rewritten file: every
   break at a rewritten line must be gone and every other break must still be there, at its
   mapped line (no new break).

Prints a JSON report; exit status 1 when any check fails. tests/test_fix_oracle.py runs it.
"""
from __future__ import annotations

import argparse
import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CASES = os.path.join(HERE, "cases")
RECORDER = os.path.join(HERE, "oracle", "record_truth.py")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(HERE, "oracle"))

COMPARE = r'''
import contextlib, importlib, io, json, os, random, sys, warnings
import torch, torch._dynamo, torch._dynamo.testing
sys.path.insert(0, sys.argv[1])
jobs = json.loads(sys.argv[2])

def seed():
    random.seed(0); torch.manual_seed(0)
    try:
        import numpy; numpy.random.seed(0)
    except ImportError:
        pass

def unwrap(target):
    while hasattr(target, "_torchdynamo_orig_callable"):
        target = target._torchdynamo_orig_callable
    return target

def same(a, b, where="out"):
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and (a.dim() > 0 or b.dim() > 0):
        if a.shape != b.shape:
            return f"{where}: shape {tuple(a.shape)} != {tuple(b.shape)}"
        ok = torch.allclose(a.double(), b.double(), equal_nan=True)
        return None if ok else f"{where}: values differ (max abs {(a.double() - b.double()).abs().max().item():.3g})"
    scalar = (int, float, bool, torch.Tensor)
    if isinstance(a, scalar) and isinstance(b, scalar):
        fa, fb = float(a), float(b)
        ok = torch.allclose(torch.tensor(fa, dtype=torch.float64), torch.tensor(fb, dtype=torch.float64),
                            equal_nan=True)
        return None if ok else f"{where}: {fa} != {fb}"
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return f"{where}: length {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            problem = same(x, y, f"{where}[{i}]")
            if problem:
                return problem
        return None
    if isinstance(a, dict) and isinstance(b, dict):
        if sorted(map(str, a)) != sorted(map(str, b)):
            return f"{where}: keys differ"
        for key in a:
            problem = same(a[key], b[key], f"{where}[{key!r}]")
            if problem:
                return problem
        return None
    return None if a == b else f"{where}: {a!r} != {b!r}"

DEFAULT_CONFIG = torch._dynamo.config.save_config()
MODULE_CONFIG = {}  # a case module that sets dynamo's config at import sets it for its own cases only

def run(package, stem, index, compiled):
    seed()  # a model built when its module is imported gets the same weights in both copies
    key = f"{package}.{stem}"
    with warnings.catch_warnings():  # loading a saved config sets its deprecated keys too
        warnings.simplefilter("ignore")
        torch._dynamo.config.load_config(MODULE_CONFIG.get(key, DEFAULT_CONFIG))
    module = importlib.import_module(key)
    MODULE_CONFIG.setdefault(key, torch._dynamo.config.save_config())
    name, make_model, make_inputs = module.CASES[index]
    seed()
    model = make_model()
    inputs = make_inputs()
    target = unwrap(model)
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if not compiled:
            with torch.compiler.set_stance("force_eager"):
                return name, target(*inputs)
        torch._dynamo.reset()
        torch._dynamo.utils.counters.clear()
        counter = torch._dynamo.testing.CompileCounter()
        torch.compile(target, backend=counter)(*inputs)
        # graphs compiled, and frames dynamo traced (the function plus one resume function per
        # break it resumed after: a break between two empty graph segments shows only here)
        return name, (counter.frame_count, sum(torch._dynamo.utils.counters["frames"].get(k, 0) for k in ("total",)))

results = []
for stem, index in jobs:
    entry = {"file": stem + ".py", "index": index}
    try:
        entry["name"], original = run("cases_original", stem, index, False)
        _, fixed = run("cases", stem, index, False)
        entry["eager_problem"] = same(original, fixed)
        _, entry["graphs_original"] = run("cases_original", stem, index, True)
        _, entry["graphs_fixed"] = run("cases", stem, index, True)
    except Exception as exc:
        entry["error"] = f"{type(exc).__name__}: {exc}"[:300]
    results.append(entry)
print(json.dumps(results))
'''


def line_map(before: str, after: str) -> tuple[dict[int, int], set[int]]:
    """Unchanged lines old -> new (1-based), and the old lines a rewrite changed."""
    mapping: dict[int, int] = {}
    changed: set[int] = set()
    matcher = difflib.SequenceMatcher(a=before.splitlines(), b=after.splitlines(), autojunk=False)
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if tag == "equal":
            mapping.update({a0 + k + 1: b0 + k + 1 for k in range(a1 - a0)})
        else:
            changed.update(range(a0 + 1, a1 + 1))
    return mapping, changed


def fix_corpus(cases: str, only: list[str] | None) -> dict[str, tuple[str, str, list]]:
    """Run fix on every file of `cases` in place; name -> (before, after, outcomes) of changed files."""
    from flake8_staticfx.fix import fix_source

    changed = {}
    for name in sorted(os.listdir(cases)):
        if not name.endswith(".py") or (only and name not in only):
            continue
        path = os.path.join(cases, name)
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
        result = fix_source(source, path, display=name)
        if result.changed:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(result.fixed)
            changed[name] = (source, result.fixed, result.outcomes)
    return changed


def prove(only: list[str] | None = None, keep: str | None = None) -> dict:
    import record_truth

    with open(os.path.join(CASES, "truth.json"), encoding="utf-8") as handle:
        truth = json.load(handle)["files"]
    work = keep or tempfile.mkdtemp(prefix="staticfx-fix-proof-")
    original_dir, fixed_dir = os.path.join(work, "cases_original"), os.path.join(work, "cases")
    for target in (original_dir, fixed_dir):
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(CASES, target, ignore=shutil.ignore_patterns("__pycache__", "truth*.json"))
    changed = fix_corpus(fixed_dir, only)
    maps = {name: line_map(before, after) for name, (before, after, _) in changed.items()}
    # only the case files where a break dynamo recorded sits on a rewritten line (the recorder
    # runs one process per case: the others would cost time and prove nothing)
    case_files = [name for name in changed if name in record_truth.case_files(fixed_dir) and any(
        b["file"] in maps and b["line"] in maps[b["file"]][1]
        for case in truth[name]["cases"] for b in case["breaks"])]

    jobs = [(name[:-3], index) for name in case_files for index in range(len(truth[name]["cases"]))]
    proc = subprocess.run([sys.executable, "-c", COMPARE, work, json.dumps(jobs)],
                          capture_output=True, text=True, timeout=1200)
    if proc.returncode != 0:
        raise RuntimeError(f"the comparison failed:\n{proc.stderr[-4000:]}")
    eager = json.loads(proc.stdout.strip().splitlines()[-1])

    recorded = subprocess.run([sys.executable, RECORDER, "--cases", fixed_dir, "--show", "--quiet", *case_files],
                              capture_output=True, text=True, timeout=1800)
    if recorded.returncode != 0:
        raise RuntimeError(f"the recorder failed:\n{recorded.stderr[-4000:]}")
    fixed_truth = json.loads(recorded.stdout)

    report = {"work": work, "files": sorted(changed), "cases": [], "problems": [], "notes": []}
    by_case = {(e["file"], e["index"]): e for e in eager}
    for name in case_files:
        for index, case in enumerate(truth[name]["cases"]):
            expected, removed = set(), set()
            for brk in case["breaks"]:
                if brk["file"] is None:
                    continue
                mapping, rewritten = maps.get(brk["file"], ({}, set()))
                key = (brk["file"], brk["line"], brk["gb"])
                if brk["file"] in maps and brk["line"] in rewritten:
                    removed.add(key)
                else:
                    expected.add((brk["file"], mapping.get(brk["line"], brk["line"]), brk["gb"]))
            got = {(b["file"], b["line"], b["gb"]) for b in fixed_truth[name]["cases"][index]["breaks"]
                   if b["file"] is not None}
            entry = dict(by_case.get((name, index), {}))
            entry.update({"file": name, "index": index, "removed": sorted(removed),
                          "breaks_original": len({(b["file"], b["line"]) for b in case["breaks"]}),
                          "breaks_fixed": len({(f, ln) for f, ln, _ in got})})
            new = sorted(got - expected)
            kept = sorted(expected - got)
            label = f"{name}#{index} {entry.get('name', '')}"
            if entry.get("error"):
                report["problems"].append(f"{label}: {entry['error']}")
            if entry.get("eager_problem"):
                report["problems"].append(f"{label}: eager outputs differ: {entry['eager_problem']}")
            if new:
                report["problems"].append(f"{label}: new breaks after fix: {new}")
            if kept and not removed:
                pass  # an unrelated break that moved is still reported through `new`
            if "graphs_fixed" in entry:
                (graphs_a, frames_a), (graphs_b, frames_b) = entry.pop("graphs_original"), entry.pop("graphs_fixed")
                entry.update(graphs_original=graphs_a, graphs_fixed=graphs_b, frames_original=frames_a,
                             frames_fixed=frames_b)
                # Nothing compiled before (the break ran the function or the checkpoint
                # eagerly) and something after: the fix made it compile, the gain it is for.
                now_compiles = graphs_a == 0 and graphs_b > 0
                if (graphs_b > graphs_a and not now_compiles) or frames_b > frames_a:
                    report["problems"].append(f"{label}: more graphs or frames after fix "
                                              f"(graphs {graphs_a} -> {graphs_b}, frames {frames_a} -> {frames_b})")
                if removed and not (graphs_b < graphs_a or frames_b < frames_a or now_compiles):
                    skips = [f"{b['file']}:{b['line']}" for b in fixed_truth[name]["cases"][index]["breaks"]
                             if b["frame_skipped"]]
                    text = (f"{label}: neither the graph count nor the traced frames dropped "
                            f"(graphs {graphs_a} -> {graphs_b}, frames {frames_a} -> {frames_b})")
                    if skips:  # dynamo still gives up on the function at a break fix declined
                        report["notes"].append(f"{text}: a break left at {', '.join(skips)} still makes dynamo "
                                               "give up on the function")
                    else:
                        report["problems"].append(text)
            if any(k in got for k in removed):
                report["problems"].append(f"{label}: a rewritten break is still there")
            entry["breaks_lost"] = kept  # breaks expected but not seen (hidden before by a frame skip?)
            report["cases"].append(entry)
    return report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*")
    parser.add_argument("--keep", help="work in this directory and keep it")
    args = parser.parse_args(argv)
    report = prove(args.files or None, args.keep)
    print(json.dumps(report, indent=1))
    return 1 if report["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
