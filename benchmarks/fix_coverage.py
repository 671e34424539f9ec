#!/usr/bin/env python
"""What `fix` does with the breaks of a cases directory: per code, breaks, fixed, declined by reason.

    python benchmarks/fix_coverage.py [CASES_DIR] [--markdown]

A break is a site (file, line) where torch 2.13's dynamo broke in the recorded truth
(CASES_DIR/truth.json) and the linter reports a code there. Each is either rewritten by `fix`
(run in memory; no file is written) or declined with a reason; reasons are grouped with their
specifics (names, code in backticks) elided. Dynamo breaks the linter does not report cannot be
fixed and are counted apart, by GB id. That the rewrites remove the breaks under dynamo and keep
eager outputs is checked by tests/fix_proof.py.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from flake8_staticfx.analysis import analyze  # noqa: E402
from flake8_staticfx.fix import REWRITTEN_CODES, apply_edits, plan_file  # noqa: E402


def reason_group(reason: str) -> str:
    text = re.sub(r"`[^`]*`", "`…`", reason)
    text = re.sub(r"\([^)]*/[^)]*\)", "(…)", text)
    text = re.sub(r"[\w.]+\.py:\d+", "FILE:LINE", text)
    return text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases", nargs="?", default=os.path.join(ROOT, "tests", "cases"))
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    with open(os.path.join(args.cases, "truth.json"), encoding="utf-8") as handle:
        truth = json.load(handle)["files"]
    sites = {(b["file"], b["line"]): b["gb"] for f in truth.values() for case in f["cases"]
             for b in case["breaks"] if b["file"]}
    outcome_at: dict[tuple[str, int], list] = collections.defaultdict(list)
    for name in sorted(os.listdir(args.cases)):
        if not name.endswith(".py"):
            continue
        path = os.path.join(args.cases, name)
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
        ctx, edits, outcomes = plan_file(source, path, analyze(source, path), display=name)
        if edits:
            apply_edits(ctx, edits)  # must not raise
        for outcome in outcomes:
            outcome_at[(name, outcome.line)].append(outcome)

    table: dict[str, dict] = {}
    unreported = collections.Counter()
    for site, gb in sorted(sites.items(), key=lambda item: (item[0][0], item[0][1])):
        outcomes = outcome_at.get(site)
        if not outcomes:
            unreported[gb] += 1
            continue
        for code in sorted({o.code for o in outcomes}):
            row = table.setdefault(code, {"breaks": 0, "fixed": 0, "declined": collections.Counter()})
            row["breaks"] += 1
            mine = [o for o in outcomes if o.code == code]
            fixed = next((o for o in mine if o.rewrite), None)
            if fixed:
                row["fixed"] += 1
            else:
                row["declined"][reason_group(mine[0].reason)] += 1

    rewritten = [c for c in sorted(table) if c in REWRITTEN_CODES]
    total_breaks = sum(table[c]["breaks"] for c in rewritten)
    total_fixed = sum(table[c]["fixed"] for c in rewritten)
    if args.markdown:
        print("| code | breaks | fixed | declined | declined by reason |")
        print("| --- | ---: | ---: | ---: | --- |")
        for code in rewritten:
            row = table[code]
            reasons = "; ".join(f"{n}× {r}" for r, n in row["declined"].most_common()) or "—"
            print(f"| {code} | {row['breaks']} | {row['fixed']} | {sum(row['declined'].values())} | "
                  f"{reasons.replace('|', '/')} |")
        print(f"| all | {total_breaks} | {total_fixed} | {total_breaks - total_fixed} | |")
    else:
        for code in rewritten:
            row = table[code]
            share = row["fixed"] / row["breaks"] if row["breaks"] else 0.0
            print(f"{code}: {row['breaks']} breaks, {row['fixed']} fixed ({share:.0%}), "
                  f"{sum(row['declined'].values())} declined")
            for reason, n in row["declined"].most_common():
                print(f"    {n:3d}  {reason}")
        print(f"codes with a rewrite: {total_breaks} breaks, {total_fixed} fixed "
              f"({total_fixed / max(total_breaks, 1):.0%}), {total_breaks - total_fixed} declined")
    others = {c: table[c]["breaks"] for c in sorted(table) if c not in REWRITTEN_CODES}
    print(f"codes without a rewrite: {sum(others.values())} breaks "
          f"({', '.join(f'{c} {n}' for c, n in others.items())})")
    print(f"dynamo breaks the linter does not report (not fixable): {sum(unreported.values())} "
          f"({', '.join(f'{gb} {n}' for gb, n in sorted(unreported.items()))})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
