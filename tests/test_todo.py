"""The to-do list: breaks dynamo reaches only once an earlier one is fixed, because the earlier one
makes it run the rest of the frame, or all of it, eagerly.

tests/todo_cases/eager_frames.py has one class per way a frame runs eagerly after a break (a loop,
a `try` block, a generator, a comprehension over enumerate(), an RNN call, a helper called in a
loop, a loop after a resumed break); eager_frames_fixed.py is the same file with each break the
to-do list waits on removed on its own line. Their dynamo truth is recorded
(`python tests/oracle/record_truth.py --cases tests/todo_cases`): what dynamo reports on the fixed
file must be exactly what the linter reports on the original, less the breaks removed, plus its
to-do items. The other `*_fixed.py` files do the same for cases of tests/cases that have to-do
items (their original's truth is tests/cases/truth.json).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from flake8_staticfx.config import Options
from flake8_staticfx.front import plugin
from flake8_staticfx.front.explain import explain_root
from flake8_staticfx.analysis import analyze
from flake8_staticfx.torch_versions import TorchVersion

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "todo_cases")
CASE = os.path.join(CASES, "eager_frames.py")
FIXED = os.path.join(CASES, "eager_frames_fixed.py")
# Each fixed variant, and the directory of its original: eager_frames.py beside it, or a case of
# tests/cases whose to-do items (there for no purpose of this test) dynamo confirms the same way.
PAIRS = sorted((name, CASES if name == "eager_frames_fixed.py" else os.path.join(HERE, "cases"))
               for name in os.listdir(CASES) if name.endswith("_fixed.py"))


def _diagnostics(path: str):
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    return plugin.diagnose(source, path, None, Options(torch_version="2.13"))


def _dynamo_lines(directory: str, name: str) -> set[int]:
    """The lines of `name` where dynamo 2.13 reported a break (the truth recorded in `directory`)."""
    with open(os.path.join(directory, "truth.json"), encoding="utf-8") as handle:
        truth = json.load(handle)
    assert truth["torch"].startswith("2.13"), truth["torch"]
    cases = truth["files"][name]["cases"]
    assert all(case["compile_error"] is None and case["eager_error"] is None for case in cases)
    return {brk["line"] for case in cases for brk in case["breaks"] if brk["file"] == name}


def test_every_kind_of_eager_frame_has_its_todo_items():
    found = _diagnostics(CASE)
    assert len({d.line for d in found if d.waits_on is not None}) >= 10
    assert len({d.waits_on for d in found if d.waits_on is not None}) >= 7


@pytest.mark.parametrize(("fixed", "directory"), PAIRS)
def test_todo_items_are_what_dynamo_reports_once_the_break_they_wait_on_is_fixed(fixed, directory):
    original = fixed.removesuffix("_fixed.py") + ".py"
    found = _diagnostics(os.path.join(directory, original))
    reported = {d.line for d in found if d.waits_on is None}
    waiting = {d.line for d in found if d.waits_on is not None}
    fixed_lines = {d.waits_on for d in found if d.waits_on is not None}
    assert waiting
    assert reported == _dynamo_lines(directory, original)  # none of them is reported as a break now
    assert _dynamo_lines(CASES, fixed) == (reported - fixed_lines) | waiting


@pytest.mark.parametrize(("fixed", "directory"), PAIRS)
def test_the_fixed_variant_differs_only_on_the_lines_waited_on(fixed, directory):
    original = os.path.join(directory, fixed.removesuffix("_fixed.py") + ".py")
    with open(original, encoding="utf-8") as handle:
        case = handle.read().splitlines()
    with open(os.path.join(CASES, fixed), encoding="utf-8") as handle:
        changed_to = handle.read().splitlines()
    waited = {d.waits_on for d in _diagnostics(original) if d.waits_on is not None}
    changed = {number for number, (old, new) in enumerate(zip(case, changed_to), 1) if old != new}
    assert len(case) == len(changed_to)
    docstring = {1, 2, 3} if directory == CASES else set()
    assert changed - docstring == waited  # each break waited on, and eager_frames_fixed.py's docstring


def test_the_fixed_variant_has_no_todo_items_left_for_those_breaks():
    """Once fixed, what waited is reported: the linter agrees with itself on the fixed file."""
    found = _diagnostics(CASE)
    after = _diagnostics(FIXED)
    assert {d.line for d in after if d.waits_on is None} >= {d.line for d in found if d.waits_on is not None}


def test_a_todo_message_names_the_line_it_waits_on_at_its_end():
    for d in _diagnostics(CASE):
        marker = re.search(r"\(reached once line (\d+) no longer breaks\)$", d.message)
        assert (marker is not None) == (d.waits_on is not None), d.message
        if marker:
            assert int(marker.group(1)) == d.waits_on
            assert len(d.message) <= 160


def test_flake8_prints_each_todo_item_with_its_marker():
    proc = subprocess.run([sys.executable, "-m", "flake8", "--select=SFX", "--isolated", CASE],
                          capture_output=True, text=True, env={**os.environ, "FLAKE8_STATICFX_NO_CACHE": "1"})
    lines = proc.stdout.splitlines()
    assert "eager_frames.py:17:9: SFX202 logging call: `logger.warning('done')` (GB0291/GB4841); guard it with " \
           "torch.compiler.is_compiling() (reached once line 16 no longer breaks)" in [
               line[line.index("eager_frames.py"):] for line in lines]


@pytest.mark.parametrize("output_format", ["json", "sarif"])
def test_json_and_sarif_carry_the_line_waited_on_as_a_field(output_format):
    proc = subprocess.run([sys.executable, "-m", "flake8_staticfx", "check", "--output-format", output_format, CASE],
                          capture_output=True, text=True, env={**os.environ, "FLAKE8_STATICFX_NO_CACHE": "1"})
    document = json.loads(proc.stdout)
    if output_format == "json":
        waits = {row["line"]: row["waits_on"] for row in document}
    else:
        waits = {r["locations"][0]["physicalLocation"]["region"]["startLine"]: r.get("properties", {}).get("waits_on")
                 for r in document["runs"][0]["results"]}
    assert waits[17] == 16 and waits[16] is None


def test_explain_counts_the_todo_items_apart_from_the_breaks():
    with open(CASE, encoding="utf-8") as handle:
        analysis = analyze(handle.read(), CASE, options=Options(torch_version="2.13"))
    graph = next(g for g in analysis.graphs if g.root == "PrintInLoop.forward")
    explained = explain_root(graph, TorchVersion("2.13", "option"))
    assert explained["break_lines"] == 1
    assert explained["waiting_lines"] == 2
    assert [(w["line"], w["waits_on"]) for w in explained["waiting"]] == [(17, 16), (18, 16)]


def test_no_todo_item_under_fullgraph():
    """With fullgraph=True the compile fails at the first break: nothing runs on to wait."""
    with open(CASE, encoding="utf-8") as handle:
        source = handle.read()
    assert not [d for d in plugin.diagnose(source, CASE, None, Options(torch_version="2.13", fullgraph=True))
                if d.waits_on is not None]
