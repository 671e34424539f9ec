"""A script whose driver is its own top-level code (recompiles/module_driver.py), against the
recompiles dynamo recorded for tests/recompile_cases/tuned/module_driver_*.py, each case file's
`RECOMPILE_CASES = [("<module>", None)]` run as __main__ by the recorder."""
from __future__ import annotations

import ast
import importlib.util
import json
import os
import sys
import textwrap

import pytest

from flake8_staticfx.analysis import analyze
from flake8_staticfx.config import Options
from flake8_staticfx.recompiles import predict
from flake8_staticfx.recompiles.module_driver import MODULE_DRIVER

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "recompile_cases", "tuned")
FILES = sorted(name for name in os.listdir(CASES) if name.startswith("module_driver"))


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, "oracle", f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)  # dataclasses look the module up
    spec.loader.exec_module(module)
    return module


scoring = _load("recompile_scoring")


@pytest.mark.parametrize("torch", ["2.13", "2.14", "2.15"])
@pytest.mark.parametrize("file_name", FILES)
def test_a_scripts_top_level_code_is_replayed_as_its_driver(file_name, torch):
    """Train then evaluate under no_grad (2 compiles), three batch sizes (2), one mode only (1),
    a compile and an evaluation behind known options (1), the quickstart tutorial (3: its last
    smaller batch, then no_grad), `main(config)` compiling through `build` with dynamic=False (3):
    counted exactly, the lines claimed."""
    truth_name = "truth.json" if torch == "2.13" else f"truth-{torch}.json"
    with open(os.path.join(CASES, truth_name), encoding="utf-8") as handle:
        truth = json.load(handle)[file_name]
    assert list(truth) == [MODULE_DRIVER] and "error" not in truth[MODULE_DRIVER]
    path = os.path.join(CASES, file_name)
    with open(path, encoding="utf-8") as handle:
        analysis = analyze(handle.read(), path, options=Options(torch_version=torch))
    frames = [frame for frame in analysis.frame_compiles if frame.driver == MODULE_DRIVER]
    assert frames and all(frame.known for frame in frames)
    assert {frame.first_line: frame.compiles for frame in frames} == scoring.truth_compiles(truth[MODULE_DRIVER])
    claimed = {r.line for r in analysis.recompiles if r.driver == MODULE_DRIVER}
    assert claimed == scoring.truth_lines(truth[MODULE_DRIVER])


NET = """
    import torch
    import torch.nn as nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(16, 4)

        def forward(self, x):
            return self.fc(x)
"""


def _drivers(source: str) -> dict[str, tuple]:
    frames, recompiles = predict(ast.parse(textwrap.dedent(NET) + textwrap.dedent(source)))
    return {frame.driver: (frame.compiles, frame.known, sorted((r.line, r.rule.code, r.at_least) for r in recompiles
                                                               if r.driver == frame.driver)) for frame in frames}


def test_a_module_body_that_only_calls_main_leaves_it_to_mains_replay():
    assert _drivers("""
        def main():
            model = torch.compile(Net())
            x = torch.randn(2, 16)
            model(x)
            with torch.no_grad():
                model(x)


        if __name__ == "__main__":
            main()
    """) == {"main": (2, True, [(11, "SFX506", False)])}


def test_the_functions_a_module_body_calls_read_the_globals_it_binds():
    """`main()` reads the compiled model the module bound: replayed as the module's driver it is
    followed; replayed alone it is not (its `model` is nothing it knows)."""
    assert _drivers("""
        def main():
            x = torch.randn(2, 16)
            model(x)
            with torch.no_grad():
                model(x)


        model = torch.compile(Net())
        if __name__ == "__main__":
            main()
    """) == {MODULE_DRIVER: (2, True, [(11, "SFX506", False)])}


def test_a_module_body_not_followed_to_its_end_claims_its_lower_bound():
    """Data the replay does not follow (`torch.load`) stops the exact replay; the coarse replay
    still sees training then evaluating under no_grad: at least 2 compiles."""
    assert _drivers("""
        model = torch.compile(Net())
        data = torch.load("batches.pt")
        for batch in data:
            model(batch).sum().backward()
            with torch.no_grad():
                model(batch)
    """) == {MODULE_DRIVER: (2, False, [(11, "SFX506", True)])}


def test_the_recorder_runs_a_module_case_as_main(tmp_path):
    """The script's body under `if __name__ == "__main__":` runs once, as __main__ with no
    options of its own: three calls, the second batch size recompiling."""
    (tmp_path / "script.py").write_text(textwrap.dedent("""
        import sys

        import torch

        RECOMPILE_CASES = [("<module>", None)]

        @torch.compile
        def double(x):
            return x * 2

        if __name__ == "__main__" and not sys.argv[1:]:
            for rows in (2, 3, 4):
                double(torch.ones(rows))
    """))
    recorder = _load("record_recompiles")
    truth = recorder.record_file(str(tmp_path), "script.py", sys.executable)[MODULE_DRIVER]
    assert (truth["calls"], truth["compiles"]) == (3, 2)


def test_another_librarys_compile_makes_no_module_driver():
    """`re.compile` at module level compiles nothing dynamo runs; `th.compile` does."""
    from flake8_staticfx.recompiles.module_driver import module_driver
    assert module_driver(ast.parse("import re\nPATTERN = re.compile('x')\n"), {}) == []
    tree = ast.parse("import torch as th\nmodel = th.compile(net)\n")
    assert [name for name, _ in module_driver(tree, {})] == [MODULE_DRIVER]


def test_a_device_picked_by_the_machine_is_a_text_not_known():
    """`"cuda" if torch.cuda.is_available() else "cpu"` is passed on to `.to()` (the quickstart's
    driver goes on), but a branch on it is not decided: the replay stops there."""
    passed_on = """
        device = "cuda" if torch.cuda.is_available() else "cpu"
        model = torch.compile(Net().to(device))
        x = torch.randn(2, 16).to(device)
        model(x)
        with torch.no_grad():
            model(x)
    """
    assert _drivers(passed_on) == {MODULE_DRIVER: (2, True, [(11, "SFX506", False)])}
    branched = passed_on.replace("model(x)\n", "model(x)\n        if device == 'cuda':\n            model(x)\n", 1)
    assert _drivers(branched)[MODULE_DRIVER][1] is False


def test_a_body_calling_a_function_that_compiles_through_another_is_a_driver():
    """`main(config)` takes parameters and compiles through `setup()`: its module body is the
    driver; a `main()` without parameters compiling the same way is its own."""
    from flake8_staticfx.recompiles.module_driver import module_driver
    source = textwrap.dedent("""
        import torch

        def setup():
            return torch.compile(net)

        def main(config):
            model = setup()

        if __name__ == "__main__":
            main(None)
    """)
    assert [name for name, _ in module_driver(ast.parse(source), {})] == [MODULE_DRIVER]
    alone = source.replace("main(config)", "main()").replace("main(None)", "main()")
    assert module_driver(ast.parse(alone), {}) == []
