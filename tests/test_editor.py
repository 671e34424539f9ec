"""As editors run the linter: from stdin with a display name, in parallel, and in one
long-lived process where files change between runs.

- `flake8 -` with `--stdin-display-name` reports what linting the file on disk reports (the
  sibling modules are found from the display name), and lints the buffer, not the disk;
- `--jobs 2` over a directory reports what `--jobs 1` reports;
- in one process, analysing a file, editing it and a sibling module it imports from, and
  analysing again gives the new answer: nothing is served stale from a cache.
"""
from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from flake8_staticfx.analysis import analyze
from flake8_staticfx.config import Options
from flake8_staticfx.front.plugin import Checker
from flake8_staticfx.front.report import flake8_diagnostics

FORMAT = "--format=%(path)s|%(row)d|%(col)d|%(code)s|%(text)s"

LAYERS = """
    import torch
    import torch.nn as nn


    class Block(nn.Module):
        def __init__(self, dim=4):
            super().__init__()
            self.proj = nn.Linear(dim, dim)

        def forward(self, x):
            if x.sum() > 0:
                x = self.proj(x)
            return x
"""
UTIL = """
    def helper(x):
        print("helper", x.shape)
        return x * 2


    def clean(x):
        return x + 1
"""
MODEL = """
    import torch
    import torch.nn as nn

    from .layers import Block
    from .util import clean, helper


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.block = Block()

        def forward(self, x):
            x = self.block(x)
            x = helper(x)
            x = clean(x)
            return x * x.max().item()
"""
OTHERS = {
    "conv.py": """
        import torch.nn as nn
        import torch.nn.functional as F


        class Conv(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 8, 3)

            def forward(self, x):
                y = self.conv(x)
                idx = (y > 0).nonzero()
                return F.relu(y), idx
    """,
    "rnn.py": """
        import torch
        import torch.nn as nn


        class Seq(nn.Module):
            def __init__(self):
                super().__init__()
                self.cells = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])

            def forward(self, x, steps: int = 3):
                for cell in self.cells:
                    x = cell(x)
                    if x.norm() > 10:
                        break
                return x.tolist()
    """,
    "clean.py": """
        import torch.nn as nn


        class Clean(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(4, 4)

            def forward(self, x):
                return self.lin(x).relu()
    """,
    "funcs.py": """
        import torch


        @torch.compile
        def step(x):
            print(x.sum())
            return x.numpy()
    """,
    "notorch.py": """
        def forward(x):
            return x
    """,
}


def write(path: Path, source: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
    return path


@pytest.fixture()
def project(tmp_path) -> Path:
    root = tmp_path / "proj"
    write(root / "pkg" / "__init__.py", "")
    write(root / "pkg" / "layers.py", LAYERS)
    write(root / "pkg" / "util.py", UTIL)
    write(root / "pkg" / "model.py", MODEL)
    for name, source in OTHERS.items():
        write(root / "pkg" / "more" / name, source)
    write(root / "pkg" / "more" / "__init__.py", "")
    return root


def flake8(*args: str, cwd: Path, stdin: str | None = None) -> list[tuple[str, int, int, str, str]]:
    result = subprocess.run([sys.executable, "-m", "flake8", "--select=SFX", "--isolated", FORMAT, *args],
                            cwd=cwd, input=stdin, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == (1 if result.stdout else 0), (result.returncode, result.stderr)
    found = []
    for line in result.stdout.splitlines():
        path, row, col, code, text = line.split("|", 4)
        found.append((path, int(row), int(col), code, text))
    return sorted(found)


# ---------------------------------------------------------------------------
# stdin

@pytest.mark.parametrize("absolute", [False, True], ids=["relative", "absolute"])
def test_stdin_matches_file(project, tmp_path, absolute):
    model = project / "pkg" / "model.py"
    name = str(model) if absolute else "pkg/model.py"
    cwd = tmp_path if absolute else project  # editors often run from elsewhere with an absolute name
    from_file = flake8(name, cwd=cwd)
    from_stdin = flake8(f"--stdin-display-name={name}", "-", cwd=cwd, stdin=model.read_text(encoding="utf-8"))
    assert from_file, "the model has breaks: the comparison would be vacuous"
    assert {code for *_, code, _ in from_file} >= {"SFX101", "SFX102", "SFX201"}, from_file
    assert from_stdin == from_file


def test_stdin_lints_the_buffer_not_the_disk(project):
    """An unsaved buffer: the answer is the buffer's (lines shifted, a break added)."""
    model = project / "pkg" / "model.py"
    on_disk = flake8("pkg/model.py", cwd=project)
    buffer = model.read_text(encoding="utf-8").replace(
        "        x = clean(x)\n", "        x = clean(x)\n        print(x)\n\n")
    in_buffer = flake8("--stdin-display-name=pkg/model.py", "-", cwd=project, stdin=buffer)
    assert buffer != model.read_text(encoding="utf-8")
    assert len(in_buffer) == len(on_disk) + 1, (on_disk, in_buffer)
    item_line = buffer.splitlines().index("        return x * x.max().item()") + 1
    assert any(row == item_line and code == "SFX102" for _, row, _, code, _ in in_buffer), in_buffer
    assert model.read_text(encoding="utf-8") == textwrap.dedent(MODEL).lstrip("\n")


# ---------------------------------------------------------------------------
# parallel

def test_jobs_2_equals_jobs_1(project):
    serial = flake8("--jobs=1", "pkg", cwd=project)
    parallel = flake8("--jobs=2", "pkg", cwd=project)
    assert len({path for path, *_ in serial}) >= 4, serial
    assert parallel == serial


def test_jobs_2_with_options_equals_jobs_1(project):
    """Options parsed once in the parent reach the workers (`parse_options` is class state)."""
    args = ("--staticfx-fullgraph", "--staticfx-notices", "--staticfx-max-inline-depth=1", "pkg")
    serial = flake8("--jobs=1", *args, cwd=project)
    parallel = flake8("--jobs=2", *args, cwd=project)
    assert parallel == serial
    assert serial != flake8("--jobs=1", "pkg", cwd=project), "the options changed nothing: vacuous"


# ---------------------------------------------------------------------------
# one long-lived process

def lint(path: Path, options: Options | None = None) -> list[tuple[int, str]]:
    """Through the Checker, as flake8 (or an editor's in-process flake8) calls it."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    tree = ast.parse("".join(lines))
    Checker.options = options or Options()
    try:
        return sorted((line, message.split()[0]) for line, _, message, _ in Checker(tree, str(path), lines).run())
    finally:
        Checker.options = Options()


def line_of(path: Path, text: str) -> int:
    return [i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if text in line][0]


def test_edit_file_and_sibling_gives_new_answer(project):
    model = project / "pkg" / "model.py"
    util = project / "pkg" / "util.py"
    layers = project / "pkg" / "layers.py"
    first = lint(model)
    assert (line_of(model, "x = helper(x)"), "SFX201") in first, first
    assert (line_of(model, "x = clean(x)"), "SFX201") not in first

    # the sibling changes: the print moves from helper() to clean()
    write(util, UTIL.replace('    print("helper", x.shape)\n', "").replace(
        "        return x + 1", '        print("clean", x.shape)\n        return x + 1'))
    # another sibling loses its branch
    write(layers, LAYERS.replace("if x.sum() > 0:", "if x.shape[0] > 0:"))
    # the file itself changes: .item() goes, a .nonzero() comes
    write(model, MODEL.replace("return x * x.max().item()", "return x.nonzero()"))

    second = lint(model)
    assert (line_of(model, "x = clean(x)"), "SFX201") in second, second
    assert (line_of(model, "x = helper(x)"), "SFX201") not in second, second
    assert (line_of(model, "x = self.block(x)"), "SFX101") not in second, second
    assert "SFX102" not in {code for _, code in second}, second
    assert second == lint(model)  # and it stays the answer


def test_edit_twice_in_the_same_mtime_tick(project):
    """A sibling rewritten without its mtime moving (two saves within the filesystem's
    timestamp granularity, or a tool that preserves mtimes): the new text still counts."""
    model = project / "pkg" / "model.py"
    util = project / "pkg" / "util.py"
    first = lint(model)
    assert (line_of(model, "x = helper(x)"), "SFX201") in first
    stat = util.stat()
    write(util, UTIL.replace('    print("helper", x.shape)\n', "    x = x - 1\n"))
    os.utime(util, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert (line_of(model, "x = helper(x)"), "SFX201") not in lint(model)


def test_new_and_deleted_siblings(project):
    """A sibling that appears after the first run, and one that disappears, are seen."""
    model = project / "pkg" / "model.py"
    write(model, MODEL.replace("from .util import clean, helper", "from .util import clean, helper\n"
                               "    from .extra import extra").replace("x = clean(x)", "x = extra(clean(x))"))
    before = lint(model)
    extra_line = line_of(model, "x = extra(clean(x))")
    assert (extra_line, "SFX102") not in before
    write(project / "pkg" / "extra.py", "def extra(x):\n    return x * x.sum().item()\n")
    assert (extra_line, "SFX102") in lint(model)
    (project / "pkg" / "extra.py").unlink()
    (project / "pkg" / "util.py").unlink()
    after = lint(model)
    assert (extra_line, "SFX102") not in after, after
    assert (line_of(model, "x = helper(x)"), "SFX201") not in after, after


def test_analyze_twice_is_deterministic(project):
    """Caches shared between runs in one process change nothing about the answer."""
    model = project / "pkg" / "model.py"
    source = model.read_text(encoding="utf-8")
    answers = []
    for options in (Options(), Options(reuse_inlined=False), Options()):
        analysis = analyze(source, str(model), ast.parse(source), options)
        answers.append(list(flake8_diagnostics(analysis, True)))
    assert answers[0] == answers[1] == answers[2]


def test_many_edits_in_a_row(project):
    """Edits faster than a human types, each one seen (mtime ticks may repeat)."""
    model = project / "pkg" / "model.py"
    util = project / "pkg" / "util.py"
    call_line = line_of(model, "x = helper(x)")
    seen = []
    for round_ in range(6):
        has_print = round_ % 2 == 0
        body = '    print("helper", x.shape)\n' if has_print else "    x = x - 1\n"
        write(util, UTIL.replace('    print("helper", x.shape)\n', body) + f"\n    # edit {round_}\n")
        seen.append(((call_line, "SFX201") in lint(model), has_print))
        time.sleep(0.001)
    assert all(found == expected for found, expected in seen), seen
