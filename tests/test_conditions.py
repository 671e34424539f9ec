"""A break reached only in some ways of running a model says when (issue 32), against the
recorded dynamo truth of the cond_* cases: each model is recorded in two settings named by the
case (`NoisyStats-train`, `NoisyStats-eval`); a line that breaks in one only carries that
setting's label, a line that breaks in both carries none."""
from __future__ import annotations

import ast
import json
import os

import pytest

from flake8_staticfx.config import Options
from flake8_staticfx.front.plugin import diagnose

CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases")
FILES = ["cond_training.py", "cond_optional_input.py", "cond_float16.py"]
# The label of a break reached only in the setting a case is named by.
LABELS = {
    "train": "when training", "eval": "in eval mode",
    "given": "when `attention_mask` is given",
    "float16": "in float16", "float32": "not in float16",
}


def truth_of(name: str) -> list[dict]:
    with open(os.path.join(CASES, "truth.json"), encoding="utf-8") as handle:
        return json.load(handle)["files"][name]["cases"]


def expected_conditions(name: str) -> dict[int, str | None]:
    """Each line a case breaks on -> the label its diagnostic carries (None: no label)."""
    settings: dict[str, set[str]] = {}  # model -> its settings
    breaking: dict[tuple[str, int], set[str]] = {}  # (model, line) -> the settings breaking there
    for case in truth_of(name):
        model, setting = case["name"].rsplit("-", 1)
        settings.setdefault(model, set()).add(setting)
        for found in case["breaks"]:
            breaking.setdefault((model, found["line"]), set()).add(setting)
    expected = {}
    for (model, line), where in breaking.items():
        expected[line] = None if where == settings[model] else LABELS[next(iter(where))]
    return expected


@pytest.mark.parametrize("name", FILES)
def test_a_break_says_in_which_setting_it_happens(name):
    path = os.path.join(CASES, name)
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    found = {d.line: d.condition for d in diagnose(source, path, ast.parse(source), Options())}
    assert found == expected_conditions(name)


def test_the_label_is_in_the_message():
    path = os.path.join(CASES, "cond_float16.py")
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    (clamp, *_) = diagnose(source, path, ast.parse(source), Options())
    assert clamp.message.startswith("SFX101 branch on a tensor's value: `torch.isfinite(hidden_states).all()` "
                                    "(GB0170) in float16; ")
