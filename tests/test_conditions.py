"""A break reached only in some ways of running a model says when (issue 32), against the
recorded dynamo truth of the cond_* cases: each model is recorded in two settings named by the
case (`NoisyStats-train`, `NoisyStats-eval`); a line that breaks in one only carries that
setting's label, a line that breaks in both carries none."""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys

import pytest

from flake8_staticfx.config import Options
from flake8_staticfx.front.plugin import diagnose

CASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases")
FILES = ["cond_training.py", "cond_optional_input.py", "cond_optional_none.py", "cond_early_return.py",
         "cond_path_tensor.py", "cond_float16.py", "cond_grad_enabled.py", "cond_autocast.py"]
# The label of a break reached only in the setting a case is named by.
LABELS = {
    "train": "when training", "eval": "in eval mode", "grad": "with grad enabled",
    "given": "when `attention_mask` is given", "none": "when `attention_mask` is None",
    "float16": "in float16", "float32": "not in float16",
    "debug": "with debug=True", "default": "with debug=False",
    "autocast": "under autocast", "noautocast": "without autocast",
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


@pytest.mark.parametrize("name, field, setting", [
    ("cond_training.py", "mode", "train"), ("cond_training.py", "mode", "eval"),
    ("cond_float16.py", "dtype", "float16"), ("cond_float16.py", "dtype", "float32"),
    ("cond_device.py", "device", "cpu"),
])
def test_an_option_keeps_exactly_the_breaks_of_its_setting(name, field, setting):
    """--staticfx-mode / --staticfx-dtype / --staticfx-device: the lines reported are those the cases named by the
    setting break on, none labelled (the setting decides them)."""
    path = os.path.join(CASES, name)
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    found = diagnose(source, path, ast.parse(source), Options(**{field: setting}))
    expected = {found["line"] for case in truth_of(name) if case["name"].endswith(f"-{setting}")
                for found in case["breaks"]}
    assert {d.line for d in found} == expected
    assert all(d.condition is None for d in found)


def test_float32_means_autocast_is_off():
    """--staticfx-dtype float32 keeps the breaks of a run without autocast, unlabelled;
    float16 leaves autocast open, its breaks still labelled."""
    without = {found["line"] for case in truth_of("cond_autocast.py") if case["name"].endswith("-noautocast")
               for found in case["breaks"]}
    assert diagnosed("cond_autocast.py", Options(dtype="float32")) == dict.fromkeys(without)
    assert diagnosed("cond_autocast.py", Options(dtype="float16")) == expected_conditions("cond_autocast.py")


def test_autocast_on_the_inputs_device_is_a_condition():
    """transformers' flash-attention dtype choice tests autocast on the query's own device."""
    source = ("import torch\n\nclass M(torch.nn.Module):\n    def forward(self, query):\n"
              "        device_type = query.device.type\n        if torch.is_autocast_enabled(device_type):\n"
              "            print('autocast')\n        return query\n")
    found = diagnose(source, "m.py", ast.parse(source), Options())
    assert {d.line: d.condition for d in found} == {7: "under autocast"}
    assert diagnose(source, "m.py", ast.parse(source), Options(dtype="float32")) == []


def test_a_device_test_labels_the_breaks_of_each_device():
    """Recorded on cpu only: each break is labelled with the cpu side of its test."""
    cpu_side = {found["line"]: None for case in truth_of("cond_device.py") for found in case["breaks"]}
    assert diagnosed("cond_device.py", Options()) == {**cpu_side, 12: "on cpu", 14: "not on cuda"}


def test_a_break_only_cuda_reaches_says_so():
    """The cuda side, which cannot run here: dynamo guards on `x.is_cuda` as on `x.device.type`."""
    source = ("import torch.nn as nn\n\nclass M(nn.Module):\n    def forward(self, x):\n"
              "        if x.is_cuda and x.max() > 0:\n            x = x + 1\n"
              "        if x.device.type == 'mps':\n            print('mps')\n        return x\n")
    found = diagnose(source, "m.py", ast.parse(source), Options())
    assert {d.line: d.condition for d in found} == {5: "on cuda", 8: "on mps"}
    on_cpu = diagnose(source, "m.py", ast.parse(source), Options(device="cpu"))
    assert on_cpu == []
    on_cuda = diagnose(source, "m.py", ast.parse(source), Options(device="cuda"))
    assert {d.line: d.condition for d in on_cuda} == {5: None}


def test_the_options_are_read_from_the_flake8_section(tmp_path):
    (tmp_path / "setup.cfg").write_text("[flake8]\nstaticfx-mode = eval\nstaticfx-dtype = float16\n")
    for name in ("cond_training.py", "cond_float16.py"):
        (tmp_path / name).write_text(open(os.path.join(CASES, name), encoding="utf-8").read())
    run = subprocess.run([sys.executable, "-m", "flake8", "--select=SFX", "cond_training.py", "cond_float16.py"],
                         cwd=tmp_path, capture_output=True, text=True, check=False)
    assert [line.split(":")[:2] for line in run.stdout.splitlines()] == [
        ["cond_float16.py", "11"], ["cond_float16.py", "25"], ["cond_training.py", "18"], ["cond_training.py", "33"]]


def diagnosed(name: str, options: Options) -> dict[int, str | None]:
    path = os.path.join(CASES, name)
    with open(path, encoding="utf-8") as handle:
        source = handle.read()
    return {d.line: d.condition for d in diagnose(source, path, ast.parse(source), options)}


def test_the_default_configuration_is_a_model_built_with_defaults():
    """A break only a non-default constructor argument reaches is not reported by default; one
    only the default reaches is, unlabelled (the configuration is the defaults)."""
    expected = {found["line"] for case in truth_of("cond_config_flag.py") if case["name"].endswith("-default")
                for found in case["breaks"]}
    assert diagnosed("cond_config_flag.py", Options()) == dict.fromkeys(expected)


def test_any_configuration_labels_each_break_with_the_setting_it_needs():
    assert diagnosed("cond_config_flag.py", Options(configuration="any")) == expected_conditions("cond_config_flag.py")


def test_a_library_is_linted_for_any_configuration():
    """Under --staticfx-library-roots a class is built by the library's users, with any values, so
    the configuration is `any` unless chosen (package oracle: pytorch_metric_learning's
    `ThresholdReducer(low=...)` breaks only where a user passes `low`)."""
    library = diagnosed("cond_config_flag.py", Options(library_roots=True))
    assert library == diagnosed("cond_config_flag.py", Options(library_roots=True, configuration="any"))
    assert library != diagnosed("cond_config_flag.py", Options(library_roots=True, configuration="default"))


@pytest.mark.parametrize("configuration", ["default", "any"])
def test_the_projects_compile_call_decides_the_configuration(configuration):
    """`torch.compile(Tracer(debug=True))`: that instance's break is reported unlabelled; a
    class the project compiles built with the flag at its default never breaks on it."""
    expected = {found["line"] for case in truth_of("cond_config_compiled.py") for found in case["breaks"]}
    assert diagnosed("cond_config_compiled.py", Options(configuration=configuration)) == dict.fromkeys(expected)


@pytest.mark.parametrize("command", ["flake8", "check"])
def test_the_configuration_option_in_flake8_and_the_cli(tmp_path, command):
    (tmp_path / "setup.cfg").write_text("[flake8]\nstaticfx-configuration = any\n")
    (tmp_path / "model.py").write_text(open(os.path.join(CASES, "cond_config_flag.py"), encoding="utf-8").read())
    argv = [sys.executable, "-m", "flake8", "--select=SFX"] if command == "flake8" else \
        [sys.executable, "-m", "flake8_staticfx", "check", "--staticfx-configuration", "any"]
    run = subprocess.run([*argv, "model.py"], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert "SFX201" in run.stdout and "with debug=True" in run.stdout, run.stderr


def test_a_bad_choice_is_a_usage_error(tmp_path):
    run = subprocess.run([sys.executable, "-m", "flake8", "--staticfx-mode=inference", os.path.join(CASES, FILES[0])],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 2 and "invalid choice" in run.stderr


def test_the_graph_explain_and_html_views_say_when_it_breaks():
    from flake8_staticfx.analysis import analyze
    from flake8_staticfx.front.explain import explain_root
    from flake8_staticfx.front.pictures import render_html
    from flake8_staticfx.front.report import graph_json, render_text
    from flake8_staticfx.torch_versions import resolve

    path = os.path.join(CASES, "cond_float16.py")
    with open(path, encoding="utf-8") as handle:
        analysis = analyze(handle.read(), path, options=Options())
    graph = next(g for g in analysis.graphs if g.root.startswith("ClampOverflow"))
    assert [r["condition"] for r in graph_json(graph)["regions"]] == ["in float16", "not in float16"]
    assert "    breaks only: in float16\n" in render_text(analysis)
    explained = explain_root(graph, resolve("2.13", (), CASES))
    assert [b["condition"] for b in explained["break_reasons"]] == ["in float16", "not in float16"]
    assert '<p class="condition">breaks only in float16</p>' in render_html(analysis)


def test_a_break_behind_an_emptiness_check_is_reported():
    """`if len(idx) == 0: return` (or `h.numel() == 0`) in a helper of another file: dynamo guards
    the size, no break, and breaks after it on every call with data; a break on the empty path,
    or behind `len(h) > 3`, stays held back (cond_empty_check.py, as recorded)."""
    name = "cond_empty_check.py"
    expected = {[line for file, line, _ in found["stack"] if file == name][-1]
                for case in truth_of(name) for found in case["breaks"]}
    assert set(diagnosed(name, Options())) == expected


def test_an_empty_tensors_path_is_one_some_calls_take():
    """Under --staticfx-configuration=any both outcomes of an emptiness test are explored: the
    break on the empty path is still held back (a library's users pass data too)."""
    assert diagnosed("cond_empty_check.py", Options(configuration="any")) == \
        diagnosed("cond_empty_check.py", Options())


def test_a_non_tensor_input_left_out_is_a_condition():
    """`num_nodes: Optional[int] = None` tested in a helper of another file: the break after
    `if num_nodes is not None: return num_nodes` happens when it is left out, as recorded
    (cond_optional_count.py: NodeDegrees-none only); was held back as conditional."""
    name = "cond_optional_count.py"
    expected = {[line for file, line, _ in found["stack"] if file == name][-1]
                for case in truth_of(name) if case["name"].endswith("-none") for found in case["breaks"]}
    found = diagnosed(name, Options())
    assert set(found) == expected
    assert all("when `num_nodes` is None" in found[line] for line in expected)


def test_a_training_flag_passed_to_a_helper_is_the_mode():
    """`if training:` in a helper of another file, given `self.training` (after a call of the
    same helper given a shape test, whose break is held back) or `self.training and self.p > 0`
    with `p` set: the break is training mode's (cond_training_flag.py, as recorded)."""
    name = "cond_training_flag.py"
    expected = {[line for file, line, _ in found["stack"] if file == name][-1]: "when training"
                for case in truth_of(name) for found in case["breaks"]}
    assert all(case["name"].endswith("-train") for case in truth_of(name) if case["breaks"])
    assert diagnosed(name, Options()) == expected


def test_a_known_test_whose_path_returns_leaves_no_condition_behind(tmp_path):
    """`if part.numel() > 0: return part` in a loop is decided (a run's data have elements) and
    returns: the code after the loop gets no condition from it (it once got ``when `part` is
    empty``, left over from the `if` for whatever block went on next)."""
    source = (
        "import torch\nimport torch.nn as nn\n\n\n"
        "class FirstFilled(nn.Module):\n"
        "    def forward(self, x):\n"
        "        for part in torch.split(x.relu(), 2):\n"
        "            if part.numel() > 0:\n"
        "                return part\n"
        "        return x.sum().item()\n"
    )
    path = tmp_path / "first_filled.py"
    path.write_text(source)
    found = {d.line: d.condition for d in diagnose(source, str(path), ast.parse(source), Options())}
    assert found == {10: None}
