#!/usr/bin/env python
"""Score the recompile analysis (flake8_staticfx.recompiles) against recorded dynamo truth.

    python tests/oracle/recompile_scoring.py [DIR ...] [--details]
    python tests/oracle/recompile_scoring.py --torch 2.14   # against DIR/truth-2.14.json

For each case (a driver of RECOMPILE_CASES), dynamo's truth (record_recompiles.py) gives the
lines whose guards made a frame recompile (a guard dynamo prints without a source line counts at
its frame's `def` line) and the compiles of each frame of the case file (resume functions after
a graph break left out). The analysis predicts both from the source. Scores: precision and recall
of (file, case, line), and the share of cases whose compiles per frame are all exact.
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import re
import sys
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from flake8_staticfx.analysis import analyze  # noqa: E402
from flake8_staticfx.config import Options  # noqa: E402
from flake8_staticfx.recompiles.module_driver import MODULE_DRIVER  # noqa: E402

CASES = os.path.join(ROOT, "tests", "recompile_cases")
PARTS = ("tuned", "heldout", "realcode", "realcode2", "realcode3", "realcode4",
         "realcode5", "realcode6")
_FRAME = re.compile(r"^(?P<function>\S+) (?P<file>[^:]+):(?P<line>\d+)$")


@dataclass
class Score:
    true_lines: int = 0
    false_lines: list = field(default_factory=list)
    missed_lines: list = field(default_factory=list)
    exact: int = 0
    cases: int = 0
    wrong_counts: list = field(default_factory=list)

    @property
    def precision(self) -> float:
        found = self.true_lines + len(self.false_lines)
        return self.true_lines / found if found else 1.0

    @property
    def recall(self) -> float:
        wanted = self.true_lines + len(self.missed_lines)
        return self.true_lines / wanted if wanted else 1.0

    @property
    def exact_share(self) -> float:
        return self.exact / self.cases if self.cases else 1.0

    def summary(self) -> str:
        return (f"lines precision {self.precision:.3f} recall {self.recall:.3f} "
                f"({self.true_lines} right, {len(self.false_lines)} false, {len(self.missed_lines)} missed); "
                f"compiles exact {self.exact}/{self.cases} ({self.exact_share:.3f})")


def truth_lines(case: dict) -> set[int]:
    lines = set()
    for recompile in case.get("recompiles", []):
        if recompile["line"] is not None:
            lines.add(recompile["line"])
        else:
            frame = _FRAME.match(recompile["frame"])
            if frame and not frame["file"].startswith("<"):
                lines.add(int(frame["line"]))
    return lines


def truth_compiles(case: dict) -> dict[int, int]:
    found = {}
    for key, frame in case.get("frames", {}).items():
        match = _FRAME.match(key)
        if match and not match["file"].startswith("<") and not match["function"].startswith("torch_dynamo_resume"):
            found[int(match["line"])] = frame["compiles"]
    return found


def score_part(directory: str, torch: str = "") -> Score:
    """The analysis answering for `torch` (a minor version; '' the installed one) scored against
    the truth recorded with it (truth-MINOR.json; truth.json is 2.13's)."""
    name = f"truth-{torch}.json" if torch and torch != "2.13" else "truth.json"
    options = Options(torch_version=torch) if torch else None
    with open(os.path.join(directory, name), encoding="utf-8") as handle:
        truth = json.load(handle)
    score = Score()
    for file_name, cases in sorted(truth.items()):
        path = os.path.join(directory, file_name)
        with open(path, encoding="utf-8") as handle:
            analysis = analyze(handle.read(), path, options=options)
        frames, recompiles = analysis.frame_compiles, analysis.recompiles
        for case_name, case in sorted(cases.items()):
            if "error" in case:
                continue
            driver = _driver_of(directory, file_name, case_name)
            predicted = {r.line for r in recompiles if r.driver == driver}
            wanted = truth_lines(case)
            score.true_lines += len(predicted & wanted)
            score.false_lines += [(file_name, case_name, line) for line in sorted(predicted - wanted)]
            score.missed_lines += [(file_name, case_name, line) for line in sorted(wanted - predicted)]
            counts = {f.first_line: f.compiles for f in frames if f.driver == driver and f.compiles}
            known = all(f.known for f in frames if f.driver == driver)
            score.cases += 1
            if known and counts == truth_compiles(case):
                score.exact += 1
            else:
                score.wrong_counts.append((file_name, case_name, counts if known else "unknown",
                                           truth_compiles(case)))
    return score


def _driver_of(directory: str, file_name: str, case_name: str) -> str:
    """The driver function a case names in RECOMPILE_CASES (read from the source); for
    `("<module>", None)`, the module's top-level code, the analysis's MODULE_DRIVER."""
    with open(os.path.join(directory, file_name), encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "RECOMPILE_CASES" for t in node.targets):
            for item in node.value.elts:
                if item.elts[0].value == case_name and isinstance(item.elts[1], ast.Name):
                    return item.elts[1].id
                if item.elts[0].value == case_name and isinstance(item.elts[1], ast.Constant) \
                        and item.elts[1].value is None:
                    return MODULE_DRIVER
    return case_name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dirs", nargs="*")
    parser.add_argument("--details", action="store_true")
    parser.add_argument("--torch", default="", help="the release answered for and recorded with (2.13, 2.14, 2.15)")
    args = parser.parse_args(argv)
    for directory in args.dirs or [os.path.join(CASES, part) for part in PARTS]:
        score = score_part(directory, args.torch)
        print(f"{os.path.basename(directory)}: {score.summary()}")
        if args.details:
            for label, items in (("false", score.false_lines), ("missed", score.missed_lines),
                                 ("compiles", score.wrong_counts)):
                for item in items:
                    print(f"  {label}: {item}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
