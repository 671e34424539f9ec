"""`flake8 --format=sarif` (the flake8-sarif plugin) carries our diagnostics for code scanning."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("flake8_sarif_reporter", reason="flake8-sarif is not installed")

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def _flake8(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "flake8", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def _default_output():
    """(path, line, col, code, message) from flake8's default format, the reference."""
    out = _flake8("--select=SFX", "examples/").stdout
    rows = []
    for line in out.splitlines():
        path, lineno, col, rest = line.split(":", 3)
        code, message = rest.strip().split(" ", 1)
        rows.append((path, int(lineno), int(col), code, message))
    return rows


def test_sarif_carries_rule_ids_locations_and_messages():
    expected = _default_output()
    assert {row[3] for row in expected} >= {"SFX101", "SFX102", "SFX202", "SFX401"}

    proc = _flake8("--select=SFX", "--format=sarif", "examples/")
    assert proc.returncode == 1, proc.stderr
    sarif = json.loads(proc.stdout)
    assert sarif["version"] == "2.1.0"
    (run,) = sarif["runs"]

    rule_ids = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert sorted(rule_ids) == sorted({row[3] for row in expected})

    got = []
    for result in run["results"]:
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        region = physical["region"]
        got.append((physical["artifactLocation"]["uri"], region["startLine"],
                    region["startColumn"], result["ruleId"], result["message"]["text"]))
    assert sorted(got) == sorted(expected)


def test_sarif_empty_for_clean_file():
    proc = _flake8("--select=SFX", "--format=sarif", "examples/simple_net.py")
    assert proc.returncode == 0, proc.stderr
    (run,) = json.loads(proc.stdout)["runs"]
    assert run["results"] == []
