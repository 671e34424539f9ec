"""A counter a module's forward increments on itself recompiles for any caller that calls the
compiled module more than once (recompiles/self_state.py): claimed where no driver of the file
describes the calls, checked against the recorded truth of tests/recompile_cases/tuned
(self_state.py, counter_shapes.py, decorated_counters.py, list_shapes.py; recorded with 2.13,
2.14.1 and 2.15.0)."""
from __future__ import annotations

import ast
import json
import os

import pytest

from flake8_staticfx.analysis import analyze
from flake8_staticfx.config import Options
from flake8_staticfx.front.report import diagnostics

TUNED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "recompile_cases", "tuned")
FILES = ("self_state.py", "counter_shapes.py", "decorated_counters.py", "list_shapes.py")
RELEASES = {"2.13": "truth.json", "2.14": "truth-2.14.json", "2.15": "truth-2.15.json"}


def _without_drivers(source: str) -> str:
    """The case file as a model file without a driver: its module-level functions and
    RECOMPILE_CASES blanked, line numbers kept."""
    cut = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) or isinstance(node, ast.Assign) and any(
                getattr(target, "id", "") == "RECOMPILE_CASES" for target in node.targets):
            cut.update(range(node.lineno, node.end_lineno + 1))
    return "\n".join("" if number in cut else line
                     for number, line in enumerate(source.splitlines(), 1)) + "\n"


def _every_call_lines(case: dict) -> set[int]:
    """The lines of a case whose frame recompiled at every call after the first (a frame a
    break splits compiles twice per call: tuned/list_shapes.py, dice_loss)."""
    frames = case["frames"]
    return {recompile["line"] for recompile in case["recompiles"]
            if frames[recompile["frame"]]["compiles"] >= case["calls"] or frames[recompile["frame"]]["eager_after_limit"]}


@pytest.mark.parametrize("torch", sorted(RELEASES))
@pytest.mark.parametrize("name", FILES)
def test_claims_for_any_caller_are_the_recompiles_of_every_call(tmp_path, name, torch):
    with open(os.path.join(TUNED, RELEASES[torch]), encoding="utf-8") as handle:
        truth = json.load(handle)[name]
    with open(os.path.join(TUNED, name), encoding="utf-8") as handle:
        source = _without_drivers(handle.read())
    path = tmp_path / name
    path.write_text(source)
    claimed = {found.line for found in analyze(source, str(path)).recompiles}
    wanted = set().union(*(_every_call_lines(case) for case in truth.values()))
    recompiling = set().union(*(set(case["lines"]) for case in truth.values()))
    assert claimed == wanted
    assert claimed <= {int(line.split(":")[1]) for line in recompiling}


COUNTED = """\
import torch
from torch import nn


class Counted(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.step = 0

    def forward(self, x):
        self.step += 1
        return self.fc(x) / self.step
"""


@pytest.mark.parametrize("driver, said", [
    ("", "SFX502 counter attribute recompiles every call: `self.step += 1` (guard `self.step`); when compiled: "
         "eager after 8; keep the count in a buffer updated in place"),
    ("\n\nmodel = torch.compile(Counted())\n",
     "SFX502 counter attribute recompiles every call: `self.step += 1` (guard `self.step`); eager after 8 "
     "compiles; keep the count in a buffer updated in place"),
    # a driver calling it once: counted over those calls, nothing to claim
    ("\n\ndef evaluate():\n    model = torch.compile(Counted())\n    model(torch.randn(2, 4))\n", None),
])
def test_the_message_says_when_compiled_unless_the_file_compiles(tmp_path, driver, said):
    source = COUNTED + driver
    path = tmp_path / "model.py"
    path.write_text(source)
    found = [d.message for d in diagnostics(analyze(source, str(path))) if d.code == "SFX502"]
    assert found == ([said] if said else [])


NET = """\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        {init}

    def forward(self, x):
        {forward}
"""


@pytest.mark.parametrize("init, forward, claimed", [
    ("self.step = 0", "self.step += 1\n        return x", True),
    ("self.step = 0", "self.step = self.step + 1\n        return x", True),
    ("self.step = 0", "h = self.fc(x)\n        self.step -= 1\n        return h", True),
    # a buffer, a float, a value the forward does not count from, a step of nothing
    ("self.register_buffer('step', torch.zeros(()))", "self.step += 1\n        return x", False),
    ("self.step = 0.0", "self.step += 1\n        return x", False),
    ("self.step = 0", "self.step = x.shape[0]\n        return x", False),
    ("self.step = 0", "self.step *= 2\n        return x", False),
    # on some calls only: after an early return, under another test, in a loop
    ("self.step = 0", "if x.dim() > 2:\n            return x\n        self.step += 1\n        return x", False),
    ("self.step = 0", "if x.dim() > 2:\n            self.step += 1\n        return x", False),
    ("self.step = 0", "for _ in range(x.dim()):\n            self.step += 1\n        return x", False),
    # the branch dynamo takes
    ("self.step = 0", "if torch.compiler.is_compiling():\n            self.step += 1\n        return x", True),
    ("self.step = 0", "if not torch.compiler.is_compiling():\n            self.step += 1\n        return x", False),
    # bound again elsewhere to something else: not known to be an int
    ("self.step = 0\n\n    def reset(self):\n        self.step = torch.zeros(())", "self.step += 1\n        return x",
     False),
    # a list grown on every call, unless some code empties or rebinds it
    ("self.seen = []", "self.seen.append(x.detach())\n        return x", True),
    ("self.seen = []", "self.seen = []\n        self.seen.append(x.detach())\n        return x", False),
    ("self.seen = []\n\n    def reset(self):\n        self.seen.clear()", "self.seen.append(x)\n        return x", False),
    ("self.seen = []", "for row in x:\n            self.seen.append(row)\n        return x", False),
    ("self.seen = None", "self.seen.append(x)\n        return x", False),
])
def test_a_counter_is_an_int_attribute_incremented_on_every_call(tmp_path, init, forward, claimed):
    source = NET.format(init=init, forward=forward)
    path = tmp_path / "model.py"
    path.write_text(source)
    assert bool(analyze(source, str(path)).recompiles) == claimed


@pytest.mark.parametrize("torch", sorted(RELEASES))
@pytest.mark.parametrize("case", ["warmup_branch", "float_decay", "training_counter", "training_counter_eval",
                                  "bool_toggle", "buffer_iadd", "constant_write", "eager_only_counter",
                                  "increment_only", "increment_only_long", "tick_method", "unreached_counter",
                                  "child_counter", "list_history"])
def test_a_driver_calling_the_module_counts_its_counter_as_dynamo_does(case, torch):
    """The replay over the file's own driver: the lines that recompile and the compiles of
    forward, as recorded (a bool toggled compiles twice, a decayed float once symbolic, a counter
    in eval mode or under `not is_compiling()` never changes, a child's counter is guarded in the
    parent's frame, a list appended to grows)."""
    with open(os.path.join(TUNED, RELEASES[torch]), encoding="utf-8") as handle:
        truth = json.load(handle)["self_state.py"][case]
    path = os.path.join(TUNED, "self_state.py")
    with open(path, encoding="utf-8") as handle:
        analysis = analyze(handle.read(), path, options=Options(torch_version=torch))
    lines = {found.line for found in analysis.recompiles if found.driver == case}
    compiles = {frame.first_line: frame.compiles for frame in analysis.frame_compiles if frame.driver == case}
    assert lines == {int(line.split(":")[1]) for line in truth["lines"]}
    assert compiles == {int(key.split(":")[1]): frame["compiles"] for key, frame in truth["frames"].items()}


def test_a_list_grown_in_forward_gives_its_own_fix(tmp_path):
    source = NET.format(init="self.seen = []", forward="self.seen.append(x)\n        return x")
    path = tmp_path / "model.py"
    path.write_text(source)
    (found,) = diagnostics(analyze(source, str(path)))
    assert (found.code, found.message) == ("SFX502", "SFX502 counter attribute recompiles every call: "
                                           "`self.seen.append(x)`; when compiled: eager after 8; return the values "
                                           "instead of keeping them on the module")


@pytest.mark.parametrize("train, said", [
    ("", ("when compiled",)),
    ("import torch\nfrom .model import Counted\n\nmodel = torch.compile(Counted())\n", ()),
])
def test_when_compiled_is_said_of_a_module_no_compile_call_of_the_project_compiles(tmp_path, train, said):
    """Another module compiled in the file leaves the counter's "when compiled"; a compile call in
    another file of the project (a training script) compiling it removes it."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "train.py").write_text(train)
    source = COUNTED + "\n\nclass Other(nn.Module):\n    def forward(self, x):\n        return x\n\n\n" \
                       "other = torch.compile(Other())\n"
    path = tmp_path / "pkg" / "model.py"
    path.write_text(source)
    (found,) = analyze(source, str(path)).recompiles
    assert found.conditions == said
