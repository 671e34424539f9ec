"""The coarse replay of a stopped driver (recompiles/coarse.py), against the recompiles dynamo
recorded for tests/recompile_cases/tuned/coarse_drivers.py (2.13, 2.14.1 and 2.15.0 agree)."""
from __future__ import annotations

import ast
import json
import os
import textwrap

import pytest

from flake8_staticfx.analysis import analyze
from flake8_staticfx.front.explain import explain_root, render
from flake8_staticfx.front.report import recompile_message
from flake8_staticfx.recompiles import predict
from flake8_staticfx.recompiles.coarse import StateChanges

CASES = os.path.join(os.path.dirname(__file__), "recompile_cases", "tuned")
FORWARD_LINE = 25  # Tagger.forward: dynamo names a guard without a line of its own by its frame


def _claims() -> dict[str, set[int]]:
    with open(os.path.join(CASES, "coarse_drivers.py"), encoding="utf-8") as handle:
        frames, recompiles = predict(ast.parse(handle.read()))
    assert not any(frame.known for frame in frames)  # every driver stops the exact replay
    claims: dict[str, set[int]] = {}
    for recompile in recompiles:
        assert recompile.rule.code == "SFX506" and recompile.at_least
        claims.setdefault(recompile.driver, set()).add(recompile.line)
    return claims


@pytest.mark.parametrize("truth_file", ["truth.json", "truth-2.14.json", "truth-2.15.json"])
def test_the_grad_modes_a_stopped_driver_surely_calls_in_are_claimed(truth_file):
    """Training then evaluating under no_grad recompiles, also with each branch of a data test
    training; no claim where the evaluation may not run (a test on data, a `break` on data before
    it) or a helper not followed may switch grad mode."""
    with open(os.path.join(CASES, truth_file), encoding="utf-8") as handle:
        truth = json.load(handle)["coarse_drivers.py"]
    recorded = {case: {FORWARD_LINE} for case, run in truth.items() if run["recompiles"]}
    assert recorded == {"train_then_evaluate": {FORWARD_LINE}, "train_on_either_branch": {FORWARD_LINE}}
    assert _claims() == recorded


def test_a_method_not_followed_that_switches_grad_mode_may_change_state():
    tree = ast.parse(textwrap.dedent("""
        import torch as th

        class Runner:
            def freeze(self):
                self.helper()

            def helper(self):
                th.set_grad_enabled(False)

        def plain(x):
            return x + 1
    """))
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}

    def resolve(name: str) -> str:
        return "torch" + name[2:] if name.startswith("th.") else name

    calls = ast.parse("runner.freeze()\nvalue = plain(3)").body
    may_change_state = StateChanges(resolve, functions, classes)
    assert may_change_state(calls[0])
    assert not may_change_state(calls[1])


@pytest.mark.parametrize("directory, file_name, driver, line", [
    # a GRU encoder and an attention decoder, an embedding before the GRU's break: a graph is
    # compiled before it, recompiled on the grad mode when evaluating under no_grad
    ("realcode5", "seq2seq_translation.py", "seq2seq_attention_train_evaluate", 128),
    ("realcode5", "seq2seq_translation.py", "seq2seq_attention_train_evaluate", 174),
    # the RNN module made by getattr(nn, rnn_type): an opaque attribute, train then eval modes
    ("realcode3", "word_language_model.py", "lstm_train_evaluate", 53),
])
def test_frames_followed_in_part_still_claim_the_grad_mode(directory, file_name, driver, line):
    """Frames whose inputs are not all told apart (a forward run eagerly after an RNN's break, a
    module holding an opaque attribute) still recompile on the grad mode, as recorded (2.13)."""
    path = os.path.join(os.path.dirname(__file__), "recompile_cases", directory, file_name)
    with open(os.path.join(os.path.dirname(path), "truth.json"), encoding="utf-8") as handle:
        recorded = json.load(handle)[file_name][driver]["recompiles"]
    assert any(r["frame"].endswith(f".py:{line}") and "grad_mode" in r["guard"] for r in recorded)
    with open(path, encoding="utf-8") as handle:
        recompiles = analyze(handle.read(), path).recompiles
    assert (line, "SFX506") in {(r.line, r.rule.code) for r in recompiles if r.driver == driver}


def test_a_lower_bound_does_not_tell_a_number_of_calls():
    """The coarse replay runs a loop it cannot count once: its number of calls is not the
    program's, so the message gives the lower bound alone."""
    path = os.path.join(CASES, "coarse_drivers.py")
    with open(path, encoding="utf-8") as handle:
        recompiles = analyze(handle.read(), path).recompiles
    message = next(recompile_message(r) for r in recompiles if r.driver == "train_then_evaluate")
    assert "at least 2 compiles" in message and " calls" not in message


def test_explain_gives_the_lower_bound_of_a_driver_not_followed_to_its_end():
    path = os.path.join(CASES, "coarse_drivers.py")
    with open(path, encoding="utf-8") as handle:
        analysis = analyze(handle.read(), path)
    item = explain_root(analysis.graphs[0], analysis.torch, analysis.frame_compiles)
    sequences = {seq["driver"]: seq for seq in item["call_sequences"]}
    assert sequences["train_then_evaluate"] == {"driver": "train_then_evaluate", "calls": None, "compiles": 2,
                                                "at_least": True, "eager_after_limit": False}
    assert "Compiles over `train_then_evaluate`: at least 2 (its calls not all followed)" in render(item)


def test_an_attribute_set_on_a_tensor_by_code_not_followed_forgets_the_tensor():
    """`data.requires_grad = flag` with a flag not known: the coarse replay cannot tell whether
    `data` requires grad from then on, so it claims no requires_grad change."""
    frames, recompiles = predict(ast.parse(textwrap.dedent("""
        import random
        import torch

        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(8, 3)

            def forward(self, x):
                return self.fc(x)

        def run():
            model = torch.compile(Net())
            flag = random.choice([True, False])
            weights = torch.randn(4, 8, requires_grad=True)
            model(weights)
            data = torch.randn(4, 8)
            data.requires_grad = flag
            model(data)
    """)))
    assert recompiles == []


@pytest.mark.parametrize("compile_call, reads_x, claimed", [
    ("torch.compile(Net())", "x", [("SFX504", 11)]),  # 8 rows then 4 (forward at line 11): compiled again
    ("torch.compile(Net(), dynamic=True)", "x", []),  # symbolic from the first compile
    ("torch.compile(Net())", "scale", []),  # `x` never read: guarded on nothing
])
def test_a_known_size_change_among_inputs_not_all_followed_recompiles(compile_call, reads_x, claimed):
    """The other input's rows come from a library the replay does not follow, so no entry is
    known; the known batch sizes still tell that the frame compiles at least twice."""
    frames, recompiles = predict(ast.parse(textwrap.dedent(f"""
        import torch
        import datalib


        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(4, 4)

            def forward(self, x, scale):
                return self.fc({reads_x}) * scale

        def run():
            model = {compile_call}
            scale = torch.ones(datalib.rows(), 4)
            model(torch.randn(8, 4), scale)
            model(torch.randn(4, 4), scale)
    """)))
    assert [(r.rule.code, r.line) for r in recompiles] == claimed
