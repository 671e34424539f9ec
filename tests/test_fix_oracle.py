"""`fix` proven on the case corpus with torch 2.13's dynamo (see tests/fix_proof.py).

For every case file where `fix` rewrites a break dynamo recorded: the original and the fixed
model give the same eager outputs on the same seeded inputs; recorded again under dynamo, the
rewritten breaks are gone, no new break appears, and the graphs (or, where the break only split
off an empty graph, the frames dynamo traces) drop, unless a break fix declined still makes
dynamo give up on the whole function (reported as a note).
"""
import json
import os
import sys

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("libcst")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import fix_proof  # noqa: E402


@pytest.fixture(scope="module")
def report():
    return fix_proof.prove()


@pytest.mark.oracle
@pytest.mark.slow
@pytest.mark.skipif(not torch.__version__.startswith("2.13.0"), reason="the truth was recorded with torch 2.13.0")
def test_rewrites_keep_eager_outputs_and_remove_the_breaks(report):
    removed = sum(len(case["removed"]) for case in report["cases"])
    print(json.dumps({k: report[k] for k in ("files", "problems", "notes")}, indent=1))
    assert not report["problems"], "\n".join(report["problems"])
    assert removed >= 50, f"only {removed} recorded breaks were rewritten"
    assert all(case.get("eager_problem") is None and "error" not in case for case in report["cases"])
    assert all(case["breaks_fixed"] <= case["breaks_original"] for case in report["cases"])
