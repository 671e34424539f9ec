#!/usr/bin/env python
"""Accuracy of flake8-staticfx against dynamo's recorded truth: overall, per GB id, per code.

    python benchmarks/accuracy.py [CASES_DIR] [--truth T] [--flake8 OUT] [--quiet]

CASES_DIR defaults to tests/cases and its truth.json (recorded with torch 2.13.0 by
tests/oracle/record_truth.py). flake8 runs with `--select=SFX --isolated` over the directory,
unless --flake8 gives a saved output. Prints precision and recall overall, recall per dynamo
reason and per GB id, precision per SFX code (with the GB ids it was right on), then every
miss, false alarm and diagnostic without a verdict (not with --quiet). The definitions are
those of tests/oracle/scoring.py, which tests/test_accuracy.py holds to its thresholds.
"""
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests", "oracle"))

import scoring  # noqa: E402


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and not argv[0].startswith("-"):
        argv = ["--cases", argv[0], *argv[1:]]
    return scoring.main(argv)


if __name__ == "__main__":
    sys.exit(main())
