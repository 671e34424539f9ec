"""Advice that works: each rule's workaround, and each form of a construct with advice of its own
(advice.py), applied to a case removes the break under dynamo 2.13.

tests/advice_cases/before.py holds one class per rule (and per such form), which dynamo breaks on;
applied.py holds the same class with the advice its message gives applied, quoted where it is
(`# advice: ...`). Their dynamo truth is recorded
(`python tests/oracle/record_truth.py --cases tests/advice_cases`).
"""
from __future__ import annotations

import ast
import json
import os

import pytest

from flake8_staticfx.config import Options
from flake8_staticfx.front import plugin
from flake8_staticfx.rules import RULES

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "advice_cases")
BEFORE = os.path.join(CASES, "before.py")
APPLIED = os.path.join(CASES, "applied.py")

# The break rules dynamo 2.13 gives no case for here, and why.
NOT_CHECKED = {
    "SFX314": "a metaclass __call__ rerun needs a break in the constructor it reruns: covered by "
              "tests/cases/registry_metaclass.py, its advice not applied here",
    "SFX316": "a custom __instancecheck__ breaks from torch 2.14 only (ver_instancecheck_meta.py)",
    "SFX317": "checked in tests/cases/eager_comprehension_iterators.py: EagerDictValues breaks, "
              "EagerTupleOfValues (its advice, tuple(...), applied) does not",
    "SFX318": "checked in tests/cases/passed_iterators.py: weighted_sum given a zip breaks, tuple_sum "
              "given its advice, tuple(zip(...)), does not (a case class here would build the zip "
              "inside the compiled code, which dynamo models)",
}


def _truth(name: str) -> dict[str, list[dict]]:
    """Each case's breaks in `name`, as dynamo 2.13 reported them."""
    with open(os.path.join(CASES, "truth.json"), encoding="utf-8") as handle:
        truth = json.load(handle)
    assert truth["torch"].startswith("2.13"), truth["torch"]
    cases = truth["files"][name]["cases"]
    assert all(case["eager_error"] is None and case["compile_error"] is None for case in cases), name
    return {case["name"]: case["breaks"] for case in cases}


def _spans(path: str) -> dict[str, tuple[int, int]]:
    """The line span of each top-level class and function of `path`, by name."""
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    return {node.name: (node.lineno, node.end_lineno) for node in tree.body
            if isinstance(node, (ast.ClassDef, ast.FunctionDef))}


def _advised() -> dict[str, list]:
    """Each case class of before.py with the diagnostics the plugin gives inside it."""
    with open(BEFORE, encoding="utf-8") as handle:
        found = plugin.diagnose(handle.read(), BEFORE, None, Options(torch_version="2.13"))
    spans = _spans(BEFORE)
    # A helper's break belongs to the case that calls it.
    helpers = {"_Running": "LocalObject", "_remember": "CheckpointSideEffect"}
    by_case: dict[str, list] = {name: [] for name in _truth("before.py")}
    for diagnostic in found:
        owner = next((name for name, (first, last) in spans.items() if first <= diagnostic.line <= last), None)
        by_case.setdefault(helpers.get(owner, owner), []).append(diagnostic)
    return by_case


def test_every_break_rule_has_its_advice_checked():
    codes = {d.code for found in _advised().values() for d in found}
    breaking = {code for code in RULES if code[3] in "1234"}
    assert breaking - codes == set(NOT_CHECKED)


@pytest.mark.parametrize("case", sorted(_truth("before.py")))
def test_the_advice_applied_removes_the_break_under_dynamo(case):
    before, applied = _truth("before.py")[case], _truth("applied.py")[case]
    found = _advised()[case]
    assert before and found, case  # dynamo breaks there, and the linter says so
    assert applied == [], (case, applied)  # with the advice applied, dynamo breaks no more
    with open(APPLIED, encoding="utf-8") as handle:
        text = handle.read()
    first, last = _spans(APPLIED)[case]
    lines = text.splitlines()
    quoted = [line.split("# advice: ", 1)[1] for line in lines[first - 1:last] if "# advice: " in line]
    module_level = [line.split("# advice: ", 1)[1] for line in lines[:first] if line.startswith("# advice: ")]
    for diagnostic in found:  # each message's advice is what the case applied (with a word on how)
        fix = diagnostic.message.split("; ")[-1].removesuffix(" (`flake8-staticfx fix` does it)")
        assert any(advice == fix or advice.startswith(f"{fix} (") for advice in quoted + module_level), (case, fix)


def test_the_known_wrong_advice_is_gone():
    """The forms the issue named: a conversion tested by `if`, an `if ...: raise`, range() of a
    tensor, and a print fix keeps."""
    fix_of = {case: {d.message.split("; ")[-1] for d in found} for case, found in _advised().items()}
    assert fix_of["ItemTested"] == {"select with torch.where or torch.cond"}
    assert fix_of["ItemScale"] == {"keep it a 0-d tensor"}
    assert fix_of["RaiseOnNan"] == {"assert it with torch._assert_async"}
    assert fix_of["RangeOfTensor"] == {"loop over a shape or a Python int"}
    assert fix_of["PrintReorderable"] == {"add print to reorderable_logging_functions"}
    assert fix_of["PrintShape"] == {"guard it with torch.compiler.is_compiling()"}
