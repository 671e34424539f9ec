"""The linter against torch 2.13 dynamo's recorded graph breaks on tests/cases.

Runs the real flake8 (`python -m flake8 --select=SFX --isolated tests/cases`) and compares its
diagnostics line by line with tests/cases/truth.json (recorded by tests/oracle/record_truth.py).
See tests/oracle/scoring.py for what counts as a hit, a miss and a false alarm.
"""
import json
import os
import re
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
TRUTH = os.path.join(CASES, "truth.json")
sys.path.insert(0, os.path.join(HERE, "oracle"))

import scoring  # noqa: E402

MIN_PRECISION = 0.97
MIN_RECALL = 0.92


@pytest.fixture(scope="module")
def truth():
    with open(TRUTH, encoding="utf-8") as handle:
        return json.load(handle)


@pytest.fixture(scope="module")
def output_with_notices():
    return scoring.run_flake8(CASES, ("--staticfx-notices",))


@pytest.fixture(scope="module")
def output(output_with_notices):
    """What flake8 prints by default: SFX900 notices are opt-in."""
    return "".join(line for line in output_with_notices.splitlines(keepends=True) if " SFX900 " not in line)


@pytest.fixture(scope="module")
def report(truth, output):
    diagnostics = scoring.parse_diagnostics(output, CASES)
    return scoring.score(truth, diagnostics, CASES)


def test_no_root_of_the_cases_fails_inside_the_analysis(output_with_notices):
    """An exception inside the interpreter is contained at its root as an SFX900 notice, so a
    bug there shows only as a missed break (a NameError in the metaclass rule, registry_metaclass.py)."""
    internal = [line for line in output_with_notices.splitlines()
                if " SFX900 " in line and re.search(r"\b[A-Z]\w*(Error|Exception)\b", line)]
    assert internal == []


def test_every_message_fits_160_characters(output):
    """What flake8 prints after `path:line:col: `, over the whole corpus (breaks in other files
    of the cases package included)."""
    from flake8_staticfx.rules import RULES

    messages = [re.sub(r"^.*?:\d+:\d+: ", "", line) for line in output.splitlines()]
    assert len(messages) > 90
    assert max(len(message) for message in messages) <= 160, max(messages, key=len)
    for message in messages:
        code = message.split()[0]
        assert message.startswith(f"{code} {RULES[code].summary}: `"), message
    assert any(" at tests/cases/" in message or " at cases/" in message for message in messages)


def test_truth_covers_every_case_file(truth):
    import record_truth
    assert sorted(truth["files"]) == record_truth.case_files(CASES), \
        "tests/cases changed: re-record with `python tests/oracle/record_truth.py`"


def test_truth_is_clean(report):
    assert not report.errors, "\n".join(report.errors)


def test_precision_and_recall(report):
    text = report.render(verbose=True)
    print(text)
    assert report.precision >= MIN_PRECISION and report.recall >= MIN_RECALL, (
        f"precision {report.precision:.3f} (need {MIN_PRECISION}), recall {report.recall:.3f} "
        f"(need {MIN_RECALL})\n{text}")


def test_report_tables_split_by_gb_id_and_code(tmp_path):
    """The per-GB-id recall and per-code precision of benchmarks/accuracy.py, on a tiny truth."""
    (tmp_path / "model.py").write_text(
        "def forward(x):\n"
        "    y = x.item()\n"
        "    print(y)\n"
        "    return x.sum()\n")
    document = {"files": {"model.py": {"cases": [{
        "name": "M", "executed": {"model.py": "2-4"},
        "breaks": [{"file": "model.py", "line": 2, "title": "item", "gb": "GB0124",
                    "stack": [["model.py", 2, "forward"]], "frame_skipped": False},
                   {"file": "model.py", "line": 3, "title": "print", "gb": "GB0059",
                    "stack": [["model.py", 3, "forward"]], "frame_skipped": False}]}]}}}
    diagnostics = {"model.py": {2: ["SFX102 item"], 4: ["SFX201 print"]}}
    report = scoring.score(document, diagnostics, str(tmp_path))
    assert report.by_gb_id == {"GB0124": [1, 1], "GB0059": [0, 1]}
    assert report.by_code == {"SFX102": [1, 0, 0], "SFX201": [0, 1, 0]}
    assert report.code_gb_ids == {"SFX102": {"GB0124"}}
    table = "\n".join(report.render_tables())
    assert "GB0059         1       0   0.00" in table
    assert "SFX201      1       0     1          0      0.00" in table
