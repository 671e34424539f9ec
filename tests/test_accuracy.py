"""The linter against each modeled torch release's recorded graph breaks on tests/cases.

Runs the real flake8 (`python -m flake8 --select=SFX --isolated --staticfx-torch-version X.Y
tests/cases`) and compares its diagnostics line by line with the truth recorded by
tests/oracle/record_truth.py under that release: tests/cases/truth.json for 2.13 (CI re-records
it live), truth-2.14.json and truth-2.15.json (recorded under those wheels, committed: CI has
only 2.13.0). See tests/oracle/scoring.py for what counts as a hit, a miss, a false alarm and a
right GB id.
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
MIN_RECALL = 0.95
MIN_GB_ACCURACY = 0.95  # of the breaks found, the share whose message names dynamo's GB id
# The truth of each release the linter models (torch_versions.MODELED).
TRUTH_OF = {"2.13": TRUTH, "2.14": os.path.join(CASES, "truth-2.14.json"),
            "2.15": os.path.join(CASES, "truth-2.15.json")}


@pytest.fixture(scope="module")
def truth():
    with open(TRUTH, encoding="utf-8") as handle:
        return json.load(handle)


@pytest.fixture(scope="module")
def output_with_notices():
    return scoring.run_flake8(CASES, ("--staticfx-notices", "--staticfx-torch-version", "2.13"))


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


def _assert_accurate(report):
    text = report.render(verbose=True)
    print(text)
    assert report.precision >= MIN_PRECISION and report.recall >= MIN_RECALL \
        and report.gb_accuracy >= MIN_GB_ACCURACY, (
            f"precision {report.precision:.3f} (need {MIN_PRECISION}), recall {report.recall:.3f} "
            f"(need {MIN_RECALL}), GB ids {report.gb_accuracy:.3f} (need {MIN_GB_ACCURACY})\n{text}")


def test_precision_and_recall(report):
    _assert_accurate(report)


def test_the_truth_files_cover_each_modeled_release():
    from flake8_staticfx.torch_versions import MODELED, minor_of

    assert sorted(TRUTH_OF) == sorted(MODELED)
    for version, path in TRUTH_OF.items():
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
        assert minor_of(document["torch"]) == version, path


@pytest.mark.parametrize("version", ["2.14", "2.15"])
def test_precision_recall_and_gb_ids_against_a_newer_release(version):
    """Scored against the truth recorded under that release's wheel (committed; CI has 2.13.0)."""
    with open(TRUTH_OF[version], encoding="utf-8") as handle:
        document = json.load(handle)
    import record_truth
    missing = sorted(set(record_truth.case_files(CASES)) - set(document["files"]))
    assert not missing, (f"record the new cases under torch {version}: python tests/oracle/record_truth.py "
                         f"-o {os.path.relpath(TRUTH_OF[version])} {' '.join(missing)} (with torch {version}'s "
                         "python, docs/torch-versions.md)")
    output = scoring.run_flake8(CASES, ("--staticfx-torch-version", version))
    report = scoring.score(document, scoring.parse_diagnostics(output, CASES), CASES)
    assert not report.errors, "\n".join(report.errors)
    _assert_accurate(report)


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


HELDOUT = os.path.join(HERE, "heldout")


@pytest.mark.parametrize("version", ["2.13", "2.14", "2.15"])
def test_heldout_cases_are_recorded_under_each_release(version):
    """tests/heldout: variants of the constructs that moved between releases, never used to tune
    the rules; scored beside tests/cases (`python tests/oracle/scoring.py --cases tests/heldout
    --torch-version X.Y`, docs/torch-versions.md), so each needs its truth under every release."""
    import record_truth
    from flake8_staticfx.torch_versions import minor_of

    name = "truth.json" if version == "2.13" else f"truth-{version}.json"
    with open(os.path.join(HELDOUT, name), encoding="utf-8") as handle:
        document = json.load(handle)
    assert minor_of(document["torch"]) == version
    assert sorted(document["files"]) == record_truth.case_files(HELDOUT)


MODEL_HELDOUT = os.path.join(HERE, "model_heldout")


def test_model_heldout_truth_covers_every_case_file():
    """tests/model_heldout: real model files of repositories used nowhere else, never used to tune
    the rules (issue 34); scored apart (`python tests/oracle/scoring.py --cases
    tests/model_heldout`), so each case file needs its dynamo 2.13 truth, each case its record."""
    import record_truth
    from flake8_staticfx.torch_versions import minor_of

    with open(os.path.join(MODEL_HELDOUT, "truth.json"), encoding="utf-8") as handle:
        document = json.load(handle)
    assert minor_of(document["torch"]) == "2.13"
    assert sorted(document["files"]) == record_truth.case_files(MODEL_HELDOUT)
    for name, recorded in document["files"].items():
        assert len(recorded["cases"]) == record_truth.number_of_cases(os.path.join(MODEL_HELDOUT, name)), name
