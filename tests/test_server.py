"""`flake8-staticfx server` driven as an editor drives it: a subprocess speaking JSON-RPC over
stdio (tests/lsp_client.py), every wait bounded.

- didOpen of a shipped example publishes its SFX diagnostics, as `check` reports them, as
  warnings linking the GB page; didChange that deletes the offending code clears them before
  any save; a break in another file of the project carries that place as related information,
  and saving that file lints the open files again;
- the quick fix is fix's rewrite: applied, the linter finds no break, and dynamo compiles the
  rewritten model to one graph with the same eager output; the noqa action silences the code;
- hover on a diagnostic gives the rule's text, its GB id and the root's graph count;
- shutdown and exit end the process with status 0.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from lsp_client import Client, apply_edits, workspace_edits  # noqa: E402

from flake8_staticfx.analysis import analyze  # noqa: E402
from flake8_staticfx.config import Options  # noqa: E402
from flake8_staticfx.fix import fix_source  # noqa: E402
from flake8_staticfx.front.lint import lint_file  # noqa: E402
from flake8_staticfx.front.options import full_graph_options  # noqa: E402
from flake8_staticfx.front.report import predicted_graphs  # noqa: E402
from flake8_staticfx.front.selection import Selection  # noqa: E402
from flake8_staticfx.rules import RULES  # noqa: E402

pytest.importorskip("pygls")

EXAMPLE = ROOT / "examples" / "conditional_net.py"


def whole_text(text: str) -> dict:
    return {"text": text}


def lines_range(first: int, last: int) -> dict:
    """Lines `first`..`last` (0-based, `last` excluded), whole."""
    return {"start": {"line": first, "character": 0}, "end": {"line": last, "character": 0}}


def linted(path: Path, text: str) -> list[tuple[str, int, str]]:
    """(code, line, message) as `check` reports `text` as the content of `path`."""
    return [(f.code, f.line, f.message) for f in
            lint_file(str(path), Options(), Selection(), lines=text.splitlines(True)) if f.code.startswith("SFX")]


@pytest.fixture()
def client(tmp_path):
    """A server started in a scratch directory (no configuration file above it but the
    test's own), shut down by the test or killed after it."""
    started = Client(cwd=str(tmp_path))
    started.initialize(str(tmp_path))
    yield started
    started.kill()


@pytest.fixture()
def example(tmp_path) -> Path:
    path = tmp_path / "conditional_net.py"
    shutil.copy(EXAMPLE, path)
    return path


def test_open_change_fix_hover_and_exit(tmp_path, example):
    client = Client(cwd=str(tmp_path))
    try:
        capabilities = client.initialize(str(tmp_path))["capabilities"]
        assert capabilities["hoverProvider"] and capabilities["codeActionProvider"]
        text = example.read_text()
        uri = client.open(str(example))

        diagnostics = client.diagnostics(uri, 1)
        expected = [("SFX101", 14, "branch on a tensor's value: `x.sum() > 0` (GB0170); "
                                   "select with torch.where or torch.cond")]
        assert [(d["code"], d["range"]["start"]["line"] + 1, d["message"]) for d in diagnostics] == \
            linted(example, text) == expected
        (diagnostic,) = diagnostics
        assert diagnostic["severity"] == 2  # Warning
        assert diagnostic["range"] == {"start": {"line": 13, "character": 11}, "end": {"line": 13, "character": 22}}
        assert diagnostic["codeDescription"]["href"] == RULES["SFX101"].docs_url
        assert "gb0170" in diagnostic["codeDescription"]["href"]

        hover = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                      "position": {"line": 13, "character": 14}})
        markdown = hover["contents"]["value"]
        rule = RULES["SFX101"]
        assert rule.code in markdown and rule.name in markdown and "GB0170" in markdown
        assert rule.summary in markdown and rule.workaround in markdown
        (graph,) = analyze(text, str(example), options=full_graph_options(Options())).graphs
        assert f"`ConditionalNet.forward` compiles to **{predicted_graphs(graph)}** graph(s)" in markdown
        assert client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                     "position": {"line": 12, "character": 8}}) is None

        actions = client.request("textDocument/codeAction", {
            "textDocument": {"uri": uri}, "range": diagnostic["range"],
            "context": {"diagnostics": diagnostics}})
        by_kind = {}
        for action in actions:
            by_kind.setdefault(action["kind"], []).append(action)
        fix = next(a for a in by_kind["quickfix"] if a["title"].startswith("Fix SFX101"))
        fixed = apply_edits(text, workspace_edits(fix["edit"], uri))
        assert fixed == fix_source(text, str(example)).fixed != text  # what `flake8-staticfx fix` writes
        assert linted(example, fixed) == []
        (fix_all,) = by_kind["source.fixAll.flake8-staticfx"]
        assert apply_edits(text, workspace_edits(fix_all["edit"], uri)) == fixed
        noqa = next(a for a in by_kind["quickfix"] if a["title"] == "Add `# noqa: SFX101`")
        silenced = apply_edits(text, workspace_edits(noqa["edit"], uri))
        assert silenced.splitlines()[13].endswith("# noqa: SFX101") and linted(example, silenced) == []

        # delete the branch without saving: the diagnostic goes
        version = client.change(uri, [{"range": lines_range(13, 17), "text": "        x = torch.relu(x)\n"}])
        assert client.diagnostics(uri, version) == []
        assert example.read_text() == text
        assert client.close() == 0
    finally:
        client.kill()


def test_the_quick_fix_compiles_to_one_graph(tmp_path, example, client):
    """The rewrite the code action offers, checked with dynamo: the break is gone (one graph
    instead of two) and the eager output is the same."""
    pytest.importorskip("torch")
    text = example.read_text()
    uri = client.open(str(example))
    (diagnostic,) = client.diagnostics(uri, 1)
    actions = client.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": diagnostic["range"],
                                                         "context": {"diagnostics": [diagnostic]}})
    fix = next(a for a in actions if a["title"].startswith("Fix SFX101"))
    (tmp_path / "fixed_net.py").write_text(apply_edits(text, workspace_edits(fix["edit"], uri)))
    check = textwrap.dedent("""
        import json, sys
        import torch, torch._dynamo.testing
        sys.path.insert(0, sys.argv[1])
        from conditional_net import ConditionalNet as Original
        from fixed_net import ConditionalNet as Fixed
        counts = []
        for seed in (0, 1):
            torch.manual_seed(seed)
            original = Original()
            fixed = Fixed()
            fixed.load_state_dict(original.state_dict())
            x = torch.randn(8, 16) * (1 if seed else -1)
            same = torch.allclose(original(x), fixed(x))
            counter = torch._dynamo.testing.CompileCounter()
            torch._dynamo.reset()
            torch.compile(fixed, backend=counter)(x)
            original_counter = torch._dynamo.testing.CompileCounter()
            torch._dynamo.reset()
            torch.compile(original, backend=original_counter)(x)
            counts.append((same, counter.frame_count, original_counter.frame_count))
        print(json.dumps(counts))
    """)
    done = subprocess.run([sys.executable, "-c", check, str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    for same, fixed_graphs, original_graphs in json.loads(done.stdout.splitlines()[-1]):
        assert same and fixed_graphs == 1 and original_graphs == 2


def test_a_break_in_another_file_is_related_and_seen_unsaved(tmp_path, client):
    """The model calls a helper; the helper's buffer gains a print, unsaved: the model's
    diagnostics show it at the call, with the print's place as related information; closing
    the helper unsaved takes the model back to the file on disk."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    ops = package / "ops.py"
    ops.write_text("def peak(x):\n    return x * 2\n")
    model = package / "model.py"
    model.write_text(textwrap.dedent("""\
        import torch.nn as nn

        from .ops import peak


        class Model(nn.Module):
            def forward(self, x):
                return peak(x) + 1
    """))
    model_uri = client.open(str(model))
    assert client.diagnostics(model_uri, 1) == []
    ops_uri = client.open(str(ops))
    assert client.diagnostics(ops_uri, 1) == []

    version = client.change(ops_uri, [whole_text("def peak(x):\n    print(x.shape)\n    return x * 2\n")])
    assert client.diagnostics(ops_uri, version) == []  # no root in the helper itself
    (diagnostic,) = client.diagnostics(model_uri, 1)
    assert diagnostic["code"] == "SFX201" and diagnostic["range"]["start"]["line"] == 7
    assert "at pkg/ops.py:2" in diagnostic["message"]
    (related,) = diagnostic["relatedInformation"]
    assert related["location"]["uri"] == ops.resolve().as_uri()
    assert related["location"]["range"]["start"]["line"] == 1
    assert "print(x.shape)" in related["message"]

    client.notify("textDocument/didClose", {"textDocument": {"uri": ops_uri}})
    assert client.diagnostics(model_uri, 1) == []


def test_the_flake8_section_applies(tmp_path, client):
    (tmp_path / "setup.cfg").write_text("[flake8]\nextend-ignore = SFX202\n")
    model = tmp_path / "transformer_block.py"
    shutil.copy(ROOT / "examples" / "transformer_block.py", model)
    uri = client.open(str(model))
    assert [d["code"] for d in client.diagnostics(uri, 1)] == ["SFX102"]


def test_a_burst_of_changes_ends_on_the_last_version(tmp_path, example, client):
    uri = client.open(str(example))
    assert [d["code"] for d in client.diagnostics(uri, 1)] == ["SFX101"]
    text = example.read_text()
    for width in range(1, 6):  # typing on the branch's line, one version each
        version = client.change(uri, [{"range": {"start": {"line": 13, "character": 22},
                                                 "end": {"line": 13, "character": 22 + width - 1}},
                                       "text": "0" * width}])
    assert [d["code"] for d in client.diagnostics(uri, version)] == ["SFX101"]
    version = client.change(uri, [whole_text(text.replace("        if x.sum() > 0:", "        if x.shape[0] > 0:"))])
    assert client.diagnostics(uri, version) == []


def test_without_pygls_the_command_says_how_to_install_it(monkeypatch, capsys):
    from flake8_staticfx.front.cli import main

    monkeypatch.setitem(sys.modules, "pygls", None)
    monkeypatch.delitem(sys.modules, "flake8_staticfx.front.lsp", raising=False)
    assert main(["server"]) == 2
    assert "pip install 'flake8-staticfx[server]'" in capsys.readouterr().err


# -- one buffer, in-process (front/buffer.py: what the server shows, without the protocol) ------

CONTINUED = '''\
import torch.nn as nn


class Net(nn.Module):
    def forward(self, x):
        peak = x.abs().max().item() + \\
            1.0
        return x / peak
'''


def test_noqa_goes_where_flake8_looks_for_it(tmp_path):
    from flake8_staticfx.front.buffer import BufferLint

    path = tmp_path / "net.py"
    path.write_text(CONTINUED)
    lint = BufferLint.of(str(path), CONTINUED, 1)
    (shown,) = lint.shown
    assert shown.finding.code == "SFX102" and shown.place.line == 5
    change = lint.noqa(shown)  # a comment after the backslash would be a syntax error
    assert (change.start, change.end, change.text) == (6, 7, "            1.0  # noqa: SFX102\n")
    lines = CONTINUED.splitlines(True)
    silenced = "".join(lines[:6] + [change.text] + lines[7:])
    assert linted(path, silenced) == []

    listed = CONTINUED.replace("            1.0\n", "            1.0  # noqa: E501\n")
    (shown,) = BufferLint.of(str(path), listed, 2).shown
    assert BufferLint.of(str(path), listed, 2).noqa(shown).text == "            1.0  # noqa: E501, SFX102\n"


def test_a_change_covers_whole_lines_and_a_missing_final_newline():
    from flake8_staticfx.front.buffer import TextChange, text_change

    assert text_change("a\nb\nc\n", "a\nB\nc\n") == TextChange(1, 2, "B\n")
    assert text_change("a\nb", "a\nB") == TextChange(1, 1, "B", end_column=1)
    assert text_change("a\n", "a\nimport torch\n") == TextChange(1, 1, "import torch\n")


def test_a_place_counts_characters_not_bytes(tmp_path):
    """flake8's columns are UTF-8 bytes (ast's col_offset); the editor's are characters."""
    from flake8_staticfx.front.buffer import BufferLint

    text = CONTINUED.replace("        peak = x.abs().max().item() + \\\n            1.0\n",
                             "        label = 'é' if x.sum() > 0 else 'ü'\n        peak = 1.0\n")
    (shown,) = BufferLint.of(str(tmp_path / "net.py"), text, 1).shown
    line = text.splitlines()[shown.place.line]
    assert shown.finding.col - 1 == len(line[:shown.place.start].encode("utf-8"))
    assert line[shown.place.start:shown.place.end] == "x.sum() > 0"


def test_exit_without_shutdown_is_an_error(tmp_path):
    client = Client(cwd=str(tmp_path))
    try:
        client.initialize(str(tmp_path))
        client.notify("exit", None)
        client.process.stdin.close()
        assert client.process.wait(30) == 1
    finally:
        client.kill()
