#!/usr/bin/env python
"""What `fix` does with every break dynamo records in a cases directory, per code: breaks,
removed, declined by reason.

    python benchmarks/fix_coverage.py [CASES_DIR] [--proven [--keep DIR] [--report OUT.json]] [--markdown]

A break is a site (file, line) where torch 2.13's dynamo broke in the recorded truth
(CASES_DIR/truth.json), whatever its code; a site the linter reports no code at is counted
under its GB id. Without --proven, `fix` runs in memory (no torch needed) and a site counts as
removed where fix plans a rewrite for it; with --proven, tests/fix_proof.py fixes a copy, runs
both copies and records the fixed one with dynamo: a site is removed only where dynamo no
longer breaks there, and the changed outputs, gradients and printed text, added breaks and
extra recompiles are listed after the table.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests"))

import fix_proof  # noqa: E402


def planned_sites(cases: str) -> list[dict]:
    """fix_proof's site records, with `removed` meaning "fix plans a rewrite" (no dynamo run)."""
    from flake8_staticfx.fix import fix_source

    with open(os.path.join(cases, "truth.json"), encoding="utf-8") as handle:
        truth = json.load(handle)["files"]
    results = {}
    for name in sorted(os.listdir(cases)):
        if name.endswith(".py"):
            with open(os.path.join(cases, name), encoding="utf-8") as handle:
                source = handle.read()
            result = fix_source(source, os.path.join(cases, name), display=name)
            results[name] = (source, result.fixed, result.outcomes)
    sites = fix_proof._sites(truth, results, set(), set())
    for site in sites:
        site["removed"] = site["rewrite"] is not None
    return sites


def print_table(sites: list[dict], markdown: bool) -> None:
    rows = fix_proof.table(sites)
    order = sorted(rows, key=lambda code: (code.startswith("GB"), code))
    total = sum(row["breaks"] for row in rows.values())
    removed = sum(row["removed"] for row in rows.values())
    if markdown:
        print("| code | breaks | removed | rewritten, still breaks | declined by reason |")
        print("| --- | ---: | ---: | ---: | --- |")
    for code in order:
        row = rows[code]
        reasons = sorted(row["declined"].items(), key=lambda item: -item[1])
        if markdown:
            text = "; ".join(f"{n}× {r}" for r, n in reasons) or "—"
            print(f"| {code} | {row['breaks']} | {row['removed']} | {row['rewritten_not_removed']} | "
                  f"{text.replace('|', '/')} |")
            continue
        print(f"{code}: {row['breaks']} breaks, {row['removed']} removed, "
              f"{row['rewritten_not_removed']} rewritten but still breaking")
        for reason, n in reasons:
            print(f"    {n:3d}  {reason}")
    share = removed / total if total else 0.0
    print(f"{'| all | ' if markdown else 'all: '}{total} breaks, {removed} removed ({share:.0%})"
          f"{' | | |' if markdown else ''}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases", nargs="?", default=fix_proof.CASES)
    parser.add_argument("--proven", action="store_true", help="prove each removal with dynamo (torch 2.13)")
    parser.add_argument("--keep", help="with --proven: work in this directory and keep it")
    parser.add_argument("--report", help="with --proven: also write the proof's JSON report here")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    if not args.proven:
        print_table(planned_sites(args.cases), args.markdown)
        return 0
    report = fix_proof.prove(None, args.keep, args.cases)
    if args.report:
        with open(args.report, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=1)
    print_table(report["sites"], args.markdown)
    added = [a for a in report["added"] if a["kind"] != "revealed"]
    print(f"added breaks: {len(added)}; revealed (hidden before by a frame skip): "
          f"{len(report['added']) - len(added)}")
    checked = [c for c in report["cases"] if "error" not in c]
    print(f"cases run: {len(report['cases'])} ({sum(c.get('trained', False) for c in checked)} with gradients); "
          f"problems (outputs, gradients, printed text, added breaks, extra recompiles): {len(report['problems'])}")
    for problem in report["problems"]:
        print(f"    {problem}")
    return 1 if report["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
