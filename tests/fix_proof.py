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
import re
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

def inputs_of(make_inputs, seed_value):
    random.seed(seed_value); torch.manual_seed(seed_value)
    return make_inputs()

def doubled(inputs):
    """The inputs with every tensor of one dimension or more repeated along its first: a
    second call with other shapes (None when nothing would change)."""
    out = [torch.cat([t, t]) if isinstance(t, torch.Tensor) and t.dim() > 0 else t for t in inputs]
    return tuple(out) if any(o is not i for o, i in zip(out, inputs)) else None

def gradients(model, outputs):
    """The gradients of every parameter of a model in training with outputs that need them
    (of the sum of the floating outputs), else None."""
    if not isinstance(model, torch.nn.Module) or not model.training:
        return None
    leaves = [o for o in torch.utils._pytree.tree_leaves(outputs)
              if isinstance(o, torch.Tensor) and o.requires_grad and o.is_floating_point()]
    if not leaves:
        return None
    try:
        sum(o.sum() for o in leaves).backward()
    except RuntimeError as exc:  # the model's own in-place ops: compared as the error it gives
        return f"backward raised {type(exc).__name__}"
    return [p.grad for _, p in model.named_parameters()]

def load(package, stem, index):
    seed()  # a model built when its module is imported gets the same weights in both copies
    key = f"{package}.{stem}"
    with warnings.catch_warnings():  # loading a saved config sets its deprecated keys too
        warnings.simplefilter("ignore")
        torch._dynamo.config.load_config(MODULE_CONFIG.get(key, DEFAULT_CONFIG))
        module = importlib.import_module(key)
        MODULE_CONFIG.setdefault(key, torch._dynamo.config.save_config())
        torch._dynamo.config.load_config(MODULE_CONFIG[key])
    return module.CASES[index]

def eager(package, stem, index):
    """(name, outputs, gradients, printed text) of one eager call."""
    name, make_model, make_inputs = load(package, stem, index)
    seed()
    model = make_model()
    inputs = make_inputs()
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), warnings.catch_warnings(), \
            torch.compiler.set_stance("force_eager"):
        warnings.simplefilter("ignore")
        outputs = unwrap(model)(*inputs)
        grads = gradients(model, outputs)
    return name, outputs, grads, printed.getvalue()

def accepted(target, inputs):
    """The inputs, where the eager model accepts them (a case may raise on other values: a
    filter that keeps no row), else None."""
    if inputs is None:
        return None
    try:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings(), \
                torch.compiler.set_stance("force_eager"):
            warnings.simplefilter("ignore")
            target(*inputs)
    except Exception:
        return None
    return inputs

def compiled(package, stem, index):
    """Graphs and frames of the first call, the frames compiled again by a second call with
    other values and a third with other shapes (each where the eager model accepts them), and
    the text the first call printed."""
    name, make_model, make_inputs = load(package, stem, index)
    seed()
    model = make_model()
    target = unwrap(model)
    first = make_inputs()
    other_values = accepted(target, inputs_of(make_inputs, 1))
    other_shapes = accepted(target, doubled(first))
    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    counter = torch._dynamo.testing.CompileCounter()
    fn = torch.compile(target, backend=counter)
    printed = io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.redirect_stdout(printed):
            fn(*first)
        # graphs compiled, and frames dynamo traced (the function plus one resume function per
        # break it resumed after: a break between two empty graph segments shows only here)
        graphs = counter.frame_count
        frames = sum(torch._dynamo.utils.counters["frames"].get(k, 0) for k in ("total",))
        with contextlib.redirect_stdout(io.StringIO()):
            again_values = again_shapes = None
            if other_values is not None:
                fn(*other_values)
                again_values = counter.frame_count - graphs
            if other_shapes is not None:
                fn(*other_shapes)
                again_shapes = counter.frame_count - graphs - (again_values or 0)
    return {"graphs": graphs, "frames": frames, "recompiles_values": again_values,
            "recompiles_shapes": again_shapes, "printed": printed.getvalue()}

results = []
for stem, index in jobs:
    entry = {"file": stem + ".py", "index": index}
    try:
        entry["name"], original, grads_original, printed = eager("cases_original", stem, index)
        _, fixed, grads_fixed, printed_fixed = eager("cases", stem, index)
        entry["eager_problem"] = same(original, fixed)
        entry["grad_problem"] = same(grads_original, grads_fixed, "grad") if grads_original is not None else None
        entry["trained"] = grads_original is not None
        entry["printed_problem"] = None if printed == printed_fixed else "eager runs print different text"
        entry["compiled_original"] = compiled("cases_original", stem, index)
        entry["compiled_fixed"] = compiled("cases", stem, index)
        entry["prints_eagerly"] = bool(printed)
        entry["compiled_prints_as_eager"] = entry["compiled_fixed"].pop("printed") == printed
        entry["compiled_original"].pop("printed")
    except Exception as exc:
        entry["error"] = f"{type(exc).__name__}: {exc}"[:300]
    results.append(entry)
print(json.dumps(results))
'''


def line_map(before: str, after: str) -> tuple[dict[int, int], dict[int, range]]:
    """Unchanged lines old -> new (1-based), and each old line a rewrite changed -> the new
    lines that took its chunk's place."""
    mapping: dict[int, int] = {}
    changed: dict[int, range] = {}
    matcher = difflib.SequenceMatcher(a=before.splitlines(), b=after.splitlines(), autojunk=False)
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if tag == "equal":
            mapping.update({a0 + k + 1: b0 + k + 1 for k in range(a1 - a0)})
        else:
            changed.update({line: range(b0 + 1, b1 + 1) for line in range(a0 + 1, a1 + 1)})
    return mapping, changed


def fix_corpus(cases: str, only: list[str] | None) -> dict[str, tuple[str, str, list]]:
    """Run fix on every file of `cases` in place; name -> (before, after, outcomes) of every file."""
    from flake8_staticfx.fix import fix_source

    fixed = {}
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
        fixed[name] = (source, result.fixed, result.outcomes)
    return fixed


def prove(only: list[str] | None = None, keep: str | None = None, cases: str = CASES) -> dict:
    """Fix a copy of `cases`, run both copies and record the fixed one with dynamo. The report's
    `sites` hold every break site of the recorded truth with its code, what fix did and whether
    dynamo still breaks there; `problems` every changed output, added break or extra recompile."""
    import record_truth

    with open(os.path.join(cases, "truth.json"), encoding="utf-8") as handle:
        truth = json.load(handle)["files"]
    work = keep or tempfile.mkdtemp(prefix="staticfx-fix-proof-")
    original_dir, fixed_dir = os.path.join(work, "cases_original"), os.path.join(work, "cases")
    for target in (original_dir, fixed_dir):
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(cases, target, ignore=shutil.ignore_patterns("__pycache__", "truth*.json"))
    results = fix_corpus(fixed_dir, only)
    changed = {name for name, (before, after, _) in results.items() if before != after}
    maps = {name: line_map(*results[name][:2]) for name in changed}
    # the case files a rewrite can change: their own file or one a break of theirs is in
    case_files = [name for name in record_truth.case_files(fixed_dir) if name in truth and (name in changed or any(
        b["file"] in changed for case in truth[name]["cases"] for b in case["breaks"]))]
    jobs = [(name[:-3], index) for name in case_files for index in range(len(truth[name]["cases"]))]
    eager = []
    if jobs:
        proc = subprocess.run([sys.executable, "-c", COMPARE, work, json.dumps(jobs)],
                              capture_output=True, text=True, timeout=3600)
        if proc.returncode != 0:
            raise RuntimeError(f"the comparison failed:\n{proc.stderr[-4000:]}")
        eager = json.loads(proc.stdout.strip().splitlines()[-1])
        recorded = subprocess.run([sys.executable, RECORDER, "--cases", fixed_dir, "--show", "--quiet", *case_files],
                                  capture_output=True, text=True, timeout=7200)
        if recorded.returncode != 0:
            raise RuntimeError(f"the recorder failed:\n{recorded.stderr[-4000:]}")
        fixed_truth = json.loads(recorded.stdout)
    else:
        fixed_truth = {}

    report = {"work": work, "files": sorted(changed), "cases": [], "problems": [], "notes": [], "added": []}
    by_case = {(e["file"], e["index"]): e for e in eager}
    still = set()  # (file, line) of original breaks dynamo still breaks at in some case
    for name in case_files:
        for index, case in enumerate(truth[name]["cases"]):
            expected: dict[tuple[str, int], tuple[str, int]] = {}  # new place -> the original site
            removed = set()
            for brk in case["breaks"]:
                if brk["file"] is None:
                    continue
                site = (brk["file"], brk["line"])
                mapping, rewritten = maps.get(brk["file"], ({}, {}))
                for line in rewritten.get(brk["line"], [mapping.get(brk["line"], brk["line"])]):
                    expected[(brk["file"], line)] = site
                removed.add(site)
            got = {(b["file"], b["line"]) for b in fixed_truth[name]["cases"][index]["breaks"] if b["file"] is not None}
            for place in got:
                if place in expected:
                    removed.discard(expected[place])
                    still.add(expected[place])
            entry = dict(by_case.get((name, index), {}))
            entry.update({"file": name, "index": index, "removed": sorted(removed),
                          "breaks_original": len({(b["file"], b["line"]) for b in case["breaks"]}),
                          "breaks_fixed": len(got)})
            label = f"{name}#{index} {entry.get('name', '')}"
            skipped = any(b["frame_skipped"] for b in case["breaks"])
            for place in sorted(got - set(expected)):
                at_rewrite = any(place[1] in lines for lines in maps.get(place[0], ({}, {}))[1].values())
                kind = "at a rewrite" if at_rewrite or not skipped else "revealed"
                report["added"].append({"case": label, "file": place[0], "line": place[1], "kind": kind})
                if kind != "revealed":
                    report["problems"].append(f"{label}: new break after fix at {place[0]}:{place[1]}")
                else:  # dynamo gave up on the frame before: fixing the break it gave up at shows this one
                    report["notes"].append(f"{label}: a break hidden by a frame skip before shows at "
                                           f"{place[0]}:{place[1]}")
            for key, what in (("error", "error"), ("eager_problem", "eager outputs differ"),
                              ("grad_problem", "gradients differ"), ("printed_problem", "printed text differs")):
                if entry.get(key):
                    report["problems"].append(f"{label}: {what}: {entry[key]}")
            before, after = entry.get("compiled_original"), entry.get("compiled_fixed")
            if before and after:
                _check_compiles(report, label, before, after, removed)
            report["cases"].append(entry)
    report["sites"] = _sites(truth, results, changed, still)
    return report


def _check_compiles(report: dict, label: str, before: dict, after: dict, removed: set) -> None:
    """Graphs and frames must not grow (unless nothing compiled before), nor the frames a
    second call with other values compiles again; a third call with other shapes may compile
    each graph once more (dynamo's automatic dynamic shapes: a graph that only exists after the
    fix does so too), no more than that or than the original did."""
    graphs_a, graphs_b, frames_a, frames_b = before["graphs"], after["graphs"], before["frames"], after["frames"]
    now_compiles = graphs_a == 0 and graphs_b > 0  # the fix made it compile, the gain it is for
    if (graphs_b > graphs_a and not now_compiles) or frames_b > frames_a and not now_compiles:
        report["problems"].append(f"{label}: more graphs or frames after fix "
                                  f"(graphs {graphs_a} -> {graphs_b}, frames {frames_a} -> {frames_b})")
    for key, what, allowed in (("recompiles_values", "other values", before["recompiles_values"]),
                               ("recompiles_shapes", "other shapes", max(before["recompiles_shapes"] or 0, graphs_b))):
        if after[key] is not None and before[key] is not None and after[key] > allowed:
            report["problems"].append(f"{label}: extra recompile on a call with {what} "
                                      f"({before[key]} -> {after[key]} frames compiled again)")
    if removed and not (graphs_b < graphs_a or frames_b < frames_a or now_compiles):
        report["notes"].append(f"{label}: neither the graph count nor the traced frames dropped "
                               f"(graphs {graphs_a} -> {graphs_b}, frames {frames_a} -> {frames_b})")


def _sites(truth: dict, results: dict, changed: set, still: set) -> list[dict]:
    """Every (file, line) where dynamo broke in the truth: the code the lint reported there
    (None where it reported none), what fix did and whether the break is gone."""
    first: dict[tuple[str, int], str] = {}
    for data in truth.values():
        for case in data["cases"]:
            for brk in case["breaks"]:
                if brk["file"] is not None:
                    first.setdefault((brk["file"], brk["line"]), brk["gb"])
    sites = []
    for (file, line), gb in sorted(first.items()):
        outcomes = [o for o in results.get(file, ("", "", []))[2] if o.line == line]
        rewrite = next((o for o in outcomes if o.rewrite), None)
        shown = rewrite or (outcomes[0] if outcomes else None)
        gone = file in changed and (file, line) not in still
        sites.append({"file": file, "line": line, "gb": gb, "code": shown.code if shown else None,
                      "rewrite": rewrite.rewrite if rewrite else None,
                      "reason": None if rewrite or not shown else shown.reason, "removed": gone})
    return sites


def table(sites: list[dict]) -> dict[str, dict]:
    """Per code (or `GBxxxx (not reported)`): breaks, removed, rewritten but still breaking,
    declined by reason (specifics elided)."""
    rows: dict[str, dict] = {}
    for site in sites:
        key = site["code"] or f"{site['gb']} (not reported)"
        row = rows.setdefault(key, {"breaks": 0, "removed": 0, "rewritten_not_removed": 0, "declined": {}})
        row["breaks"] += 1
        if site["removed"]:
            row["removed"] += 1
        elif site["rewrite"]:
            row["rewritten_not_removed"] += 1
        else:
            reason = reason_group(site["reason"]) if site["reason"] else "the lint reports no break here"
            row["declined"][reason] = row["declined"].get(reason, 0) + 1
    return rows


def reason_group(reason: str) -> str:
    """A decline reason with its specifics (code in backticks, names in parentheses) elided."""
    text = re.sub(r"`[^`]*`", "`…`", reason)
    text = re.sub(r"\([^)]*/[^)]*\)", "(…)", text)
    return re.sub(r"[\w.]+\.py:\d+", "FILE:LINE", text)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*")
    parser.add_argument("--keep", help="work in this directory and keep it")
    parser.add_argument("--cases", default=CASES, help="the cases directory, with its truth.json")
    args = parser.parse_args(argv)
    report = prove(args.files or None, args.keep, args.cases)
    print(json.dumps(report, indent=1))
    return 1 if report["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
