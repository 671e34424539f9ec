"""`flake8-staticfx explain`: dynamo's explain() output from the source, the same counts as
`graph` and the plugin."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from flake8_staticfx import segments
from flake8_staticfx.front.commands import _rows
from flake8_staticfx.analysis import analyze
from flake8_staticfx.config import Options
from flake8_staticfx.front.explain import explain_root
from flake8_staticfx.front.plugin import diagnose

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
ROOT = os.path.dirname(HERE)

HELPER = textwrap.dedent("""\
    import torch
    from torch import nn


    def scaled(x):
        peak = x.abs().max().item()
        return x / peak


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            h = self.fc(x)
            return scaled(h).relu()
""")


# A submodule made by a function of a package that is nowhere: nothing in it can be followed.
UNFOLLOWED = textwrap.dedent("""\
    from torch import nn
    from somewhere_unknown import make_body


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = make_body()

        def forward(self, x):
            return self.body(x)
""")


def explain(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flake8_staticfx", "explain", *args],
                          capture_output=True, text=True, timeout=120)


def test_text_has_counts_reasons_user_stack_and_ops(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(HELPER)
    proc = explain(str(path))
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    # the caller's graph ends at the call, the helper is a frame of its own (split at .item()),
    # and the caller resumes after the call: four graphs (measured: unique_graphs 4); dynamo's
    # explain() counts 3 breaks (graphs less one), the linter one line
    assert "Graph Count: 4\nGraph Break Count: 3\n" in text
    assert "\nBreak Lines: 1 (source lines where the graph breaks, as flake8 reports them)\n" in text
    assert "Reason: SFX102 tensor converted to a Python number: `x.abs().max().item()` (GB0124)" in text
    assert "      model.py:17 in forward\n      model.py:6 in scaled\n" in text
    assert "  Ops 1:\n    call_module fc  (line 16)\n" in text


def test_json_has_the_explain_fields(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(HELPER)
    proc = explain(str(path), "--format", "json")
    (root,) = json.loads(proc.stdout)
    assert root["root"] == "Net.forward" and root["graph_count"] == 4 and root["graph_break_count"] == 3
    assert root["break_lines"] == 1
    assert [f["function"] for f in root["break_reasons"][0]["user_stack"]] == ["forward", "scaled"]
    assert [op["target"] for op in root["ops_per_graph"][0]] == ["fc"]


def test_file_without_a_root_says_so_and_a_missing_file_is_an_error(tmp_path):
    path = tmp_path / "plain.py"
    path.write_text("x = 1\n")
    proc = explain(str(path))
    assert proc.returncode == 0 and "no compile root" in proc.stdout
    assert explain(str(tmp_path / "missing.py")).returncode == 2
    assert explain(str(path), "--root", "Nope").returncode == 2


@pytest.mark.parametrize("view", ["instance", "lint"])
def test_counts_agree_with_graph_and_the_plugin_on_every_case(view):
    """One answer everywhere: explain's graph and break counts are `graph`'s (segments) and
    `report`'s rows, breaks counted per source line, and in the lint view its breaks per source
    line are the plugin's diagnostics (but for the breaks other files' roots reach, reach.py)."""
    lint = view == "lint"
    options = Options(reuse_inlined=False, follow_defaults=not lint, file_time_budget=60.0)
    for name in sorted(os.listdir(CASES)):
        if not name.endswith(".py") or name == "__init__.py":
            continue
        path = os.path.join(CASES, name)
        source = open(path, encoding="utf-8").read()
        analysis = analyze(source, path, options=options)
        explained = [explain_root(graph, analysis.torch) for graph in analysis.graphs]
        for graph, item, row in zip(analysis.graphs, explained, _rows(analysis, path)):
            # `graph` prints segments.assign(graph).count as its predicted graphs
            assert item["graph_count"] == segments.count(graph) == row["graphs"], (name, graph.root)
            assert item["break_lines"] == sum(row["breaks"].values()), (name, graph.root)
            assert item["graph_break_count"] == item["graph_count"] - 1, (name, graph.root)
        if lint:
            breaks = {(b["line"], b["code"]) for item in explained for b in item["break_reasons"]}
            waiting = {(w["line"], w["code"]) for item in explained for w in item["waiting"]} - breaks
            found = diagnose(source, path, None, Options())
            reached = {(r.line, r.code) for r in analysis.reached} - breaks
            assert breaks == {(d.line, d.code) for d in found if d.waits_on is None} - reached, name
            assert waiting == {(d.line, d.code) for d in found if d.waits_on is not None}, name


def test_view_lint_keeps_the_branch_the_instance_view_does_not_take(tmp_path):
    """Under --staticfx-configuration=any the lint view takes the path of another value of a
    constructor flag; the instance view draws the model built with defaults."""
    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent("""\
        import torch
        from torch import nn


        class Net(nn.Module):
            def __init__(self, debug=False):
                super().__init__()
                self.debug = debug

            def forward(self, x):
                if self.debug:
                    print(x)
                return x.relu()
    """))
    counts = {}
    for view in ("instance", "lint"):
        (root,) = json.loads(explain(str(path), "--format", "json", "--view", view,
                                     "--staticfx-configuration", "any").stdout)
        counts[view] = root["break_lines"]
    assert counts == {"instance": 0, "lint": 1}


def test_commands_read_the_flake8_section_and_take_the_plugin_options(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(HELPER)
    (tmp_path / "setup.cfg").write_text("[flake8]\nstaticfx-capture-scalar-outputs = true\n")

    def breaks(*args):
        proc = subprocess.run([sys.executable, "-m", "flake8_staticfx", "explain", "model.py", "--format", "json",
                               *args], capture_output=True, text=True, timeout=120, cwd=tmp_path)
        return json.loads(proc.stdout)[0]["break_lines"]

    assert breaks() == 0  # .item() is captured, as [flake8] says
    assert breaks("--isolated") == 1
    assert breaks("--isolated", "--staticfx-capture-scalar-outputs") == 0


def test_what_was_not_followed_is_said_not_called_clean(tmp_path):
    from flake8_staticfx.front.pictures import render_html

    path = tmp_path / "model.py"
    path.write_text(UNFOLLOWED)
    analysis = analyze(path.read_text(), str(path))
    (graph,) = analysis.graphs
    assert not graph.regions and graph.unknown_values() >= 1
    page = render_html(analysis)
    assert "compiles as one graph" not in page and "could not be followed" in page
    assert "Not Followed: " in explain(str(path)).stdout


def test_a_break_in_an_unrolled_loop_is_listed_once_with_its_count(tmp_path):
    """In `forward`'s own loop the first break makes dynamo run all of `forward` eagerly: it
    is met once. In a function the loop calls, compiled as a frame of its own, it is met on
    every call (measured: dynamo logs the break once per frame)."""
    path = tmp_path / "model.py"
    source = textwrap.dedent("""\
        import torch
        from torch import nn


        def scale(x):
            return x * x.sum().item()


        class Net(nn.Module):
            def forward(self, x):
                for _ in range(3):
                    x = x * x.sum().item()
                return x


        class Calls(nn.Module):
            def forward(self, x):
                for _ in range(3):
                    x = scale(x)
                return x
    """)
    path.write_text(source)
    roots = json.loads(explain(str(path), "--format", "json").stdout)
    assert [[b["times"] for b in root["break_reasons"]] for root in roots] == [[1], [3]]
    assert [root["break_lines"] for root in roots] == [1, 1]
    assert explain(str(path)).stdout.count("(×3, once per iteration)") == 1


def test_report_counts_what_was_not_followed(tmp_path):
    (tmp_path / "model.py").write_text(UNFOLLOWED)
    proc = subprocess.run([sys.executable, "-m", "flake8_staticfx", "report", str(tmp_path), "--format", "json"],
                          capture_output=True, text=True, timeout=120)
    (row,) = json.loads(proc.stdout)
    assert row["breaks"] == {} and row["not_followed"] >= 1


def test_torch_counts_under_torch_names_on_the_transformer_block():
    """torch._dynamo.explain on examples/transformer_block.py (measured, torch 2.13): Graph Count 2,
    Graph Break Count 1: `.item()` splits the graph, and the logging call right after it splits
    nothing (no op between them). The linter reports both lines."""
    roots = json.loads(explain(os.path.join(ROOT, "examples", "transformer_block.py"), "--format", "json").stdout)
    block = next(root for root in roots if root["root"] == "TransformerBlock.forward")
    assert (block["graph_count"], block["graph_break_count"], block["break_lines"]) == (2, 1, 2)
