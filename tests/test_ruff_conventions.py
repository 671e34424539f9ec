"""What a ruff user expects of `flake8-staticfx check`: --fix and --diff, --output-format,
--exit-zero, `rule CODE`, settings in pyproject.toml."""
from __future__ import annotations

import difflib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_bad_input import run

from flake8_staticfx.rules import RULES

MODEL = """\
import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        x = self.fc(x)
        print("start")
        if x.sum() > 0:
            x = x.cumsum(0)
        logger.info("done")
        return x
"""
PRINT, BRANCH, LOG = 16, 17, 19  # SFX201 (fix guards it), SFX101 (fix declines: cumsum is not element-wise), SFX202


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "model.py").write_text(MODEL)
    return tmp_path


def lines_and_codes(stdout: str) -> list[tuple[int, str]]:
    return [(int(line.split(":")[1]), line.split(": ", 1)[1].split()[0]) for line in stdout.splitlines()]


def test_the_model_breaks_where_the_test_says(project):
    result = run("check", "model.py", cwd=project)
    assert lines_and_codes(result.stdout) == [(PRINT, "SFX201"), (BRANCH, "SFX101"), (LOG, "SFX202")]


def test_diff_prints_the_rewrites_and_changes_nothing(project):
    result = run("check", "--diff", "model.py", cwd=project)
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("--- a/model.py\n+++ b/model.py\n")
    assert (project / "model.py").read_text() == MODEL
    # the diff is what --fix writes
    run("check", "--fix", "model.py", cwd=project)
    fixed = (project / "model.py").read_text()
    assert "".join(difflib.unified_diff(MODEL.splitlines(True), fixed.splitlines(True), "a/model.py",
                                        "b/model.py")) == result.stdout


def test_fix_rewrites_and_reports_what_is_left(project):
    result = run("check", "--fix", "model.py", cwd=project)
    assert result.returncode == 1  # the branch is left
    assert (project / "model.py").read_text() != MODEL
    assert [code for _, code in lines_and_codes(result.stdout)] == ["SFX101"]
    assert "fixed 2 break(s) in 1 file(s); 1 left" in result.stderr
    again = run("check", "--diff", "model.py", cwd=project)
    assert (again.returncode, again.stdout) == (0, "")


def test_fix_keeps_to_the_selected_codes_and_noqa(project):
    source = MODEL.replace('logger.info("done")', 'logger.info("done")  # noqa: SFX202')
    source = source.replace('print("start")', 'print("start")\n        logger.info("start")')
    (project / "model.py").write_text(source)
    result = run("check", "--fix", "--select=SFX1,SFX202", "model.py", cwd=project)
    fixed = (project / "model.py").read_text()
    assert 'print("start")' in fixed and "if not torch.compiler.is_compiling():\n            print" not in fixed
    # SFX202 is silenced on one line of the file: fix does not rewrite that code there at all
    assert fixed == source, result.stderr


def test_fix_refuses_stdin(project):
    result = subprocess.run([sys.executable, "-m", "flake8_staticfx", "check", "--fix", "-"], input=MODEL,
                            capture_output=True, text=True, cwd=project, timeout=300)
    assert result.returncode == 2 and "not stdin" in result.stderr


@pytest.mark.parametrize("output_format", ["concise", "full", "json", "sarif", "github"])
def test_output_formats(project, output_format):
    result = run("check", f"--output-format={output_format}", "model.py", cwd=project)
    assert result.returncode == 1
    concise = run("check", "model.py", cwd=project).stdout
    if output_format == "concise":
        assert result.stdout == concise == run("check", "--format=text", "model.py", cwd=project).stdout
    elif output_format == "full":
        first = result.stdout.split("\n\n")[0].splitlines()
        assert first == [concise.splitlines()[0], "   |", f"{PRINT} |         print(\"start\")", "   |         ^",
                         f"   = docs: {RULES['SFX201'].docs_url}"]
    elif output_format in ("json", "sarif"):
        assert json.loads(result.stdout)
    else:
        assert result.stdout.startswith(f"::warning file=model.py,line={PRINT},col=9,title=SFX201::")


def test_exit_zero(project):
    result = run("check", "--exit-zero", "model.py", cwd=project)
    assert result.returncode == 0 and len(result.stdout.splitlines()) == 3
    assert run("check", "--exit-zero", "nothing.py", cwd=project).returncode == 2  # errors stay errors


def test_rule_prints_the_rules_documentation(project):
    result = run("rule", "SFX202", cwd=project)
    assert result.returncode == 0, result.stderr
    rule = RULES["SFX202"]
    assert result.stdout.startswith(f"SFX202 {rule.name}: {rule.summary}\n")
    assert rule.workaround in result.stdout and rule.docs_url in result.stdout
    assert "--staticfx-ignore-logging-functions" in result.stdout and "docs/rules/SFX202.md" in result.stdout
    data = json.loads(run("rule", "SFX102", "--output-format=json", cwd=project).stdout)
    assert data["code"] == "SFX102" and "--staticfx-capture-scalar-outputs" in data["not_reported_with"]
    every = json.loads(run("rule", "--all", "--output-format=json", cwd=project).stdout)
    assert [doc["code"] for doc in every] == list(RULES)


@pytest.mark.parametrize("code", ["SFX999", "SFX1", "sfx101"])
def test_rule_of_an_unknown_code(project, code):
    result = run("rule", code, cwd=project)
    assert result.returncode == 2 and f"{code}:" in result.stderr


def test_settings_from_pyproject(project):
    (project / "pyproject.toml").write_text('[tool.flake8-staticfx]\nextend-ignore = ["SFX201"]\n'
                                            'ignore-logging-functions = ["logging.Logger.info"]\n')
    result = run("check", "model.py", cwd=project)
    assert [code for _, code in lines_and_codes(result.stdout)] == ["SFX101"]
    # beside a [flake8] section, the table wins where both set something
    (project / "setup.cfg").write_text("[flake8]\nextend-ignore = SFX101\nstaticfx-fullgraph = true\n")
    result = run("check", "model.py", cwd=project)
    assert [code for _, code in lines_and_codes(result.stdout)] == ["SFX101"]
    # --config names one file; --isolated reads none
    assert [c for _, c in lines_and_codes(run("check", "--config", "setup.cfg", "model.py", cwd=project).stdout)] \
        == ["SFX201", "SFX202"]
    assert len(run("check", "--isolated", "model.py", cwd=project).stdout.splitlines()) == 3


def test_pyproject_is_found_from_a_subdirectory_and_read_by_every_command(project):
    (project / "pyproject.toml").write_text("[tool.flake8-staticfx]\nfullgraph = true\n")
    (project / "pkg").mkdir()
    (project / "pkg" / "model.py").write_text(MODEL.replace('print("start")', "x.sum().item()"))
    result = run("check", "model.py", cwd=project / "pkg")
    assert [code for _, code in lines_and_codes(result.stdout)] == ["SFX101", "SFX202"]  # no SFX102
    graph = run("graph", "model.py", cwd=project / "pkg")
    assert "SFX102" not in graph.stdout and "SFX101" in graph.stdout


@pytest.mark.parametrize(("table", "message"), [
    ("fulgraph = true", "unknown key fulgraph"),
    ('select = ["SFX999"]', "unknown code SFX999"),
    ("fullgraph = [1]", "expected a string"),
    ("fullgraph = ", "cannot read"),
])
def test_a_bad_pyproject_is_an_error(project, table, message):
    (project / "pyproject.toml").write_text(f"[tool.flake8-staticfx]\n{table}\n")
    result = run("check", "model.py", cwd=project)
    assert result.returncode == 2 and message in result.stderr and "pyproject.toml" in result.stderr
