"""Bad input is loud in every command: a missing path, a directory with nothing to lint, a file
that does not parse, a file that does not decode, an unknown code. Each gives a message naming
the file (and line) and a non-zero exit status (README, Commands: exit status)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

MODEL = """\
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x
        return -x
"""
SYNTAX_ERROR = "import torch\n\n\ndef forward(x)\n    return x\n"  # line 4, col 16: expected ':'
UNDECODABLE = b"import torch\n\nname = '\xff\xfe'\n"  # line 3: not UTF-8, and no coding cookie

# The commands that take files (graph and explain one, the others any number) and directories.
FILE_COMMANDS = ("check", "graph", "explain", "report", "fix")
DIRECTORY_COMMANDS = ("check", "report", "fix")


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flake8_staticfx", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=300)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "broken.py").write_text(SYNTAX_ERROR)
    (tmp_path / "latin.py").write_bytes(UNDECODABLE)
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "README.txt").write_text("no Python here\n")
    return tmp_path


@pytest.mark.parametrize("command", FILE_COMMANDS)
def test_a_missing_path(project, command):
    result = run(command, "modle.py", cwd=project)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "modle.py: no such file or directory" in result.stderr


@pytest.mark.parametrize("command", DIRECTORY_COMMANDS)
@pytest.mark.parametrize("directory", ["empty", "notes"])
def test_a_directory_with_nothing_to_lint(project, command, directory):
    result = run(command, directory, cwd=project)
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{directory}: no Python file to lint" in result.stderr


@pytest.mark.parametrize("command", ("graph", "explain"))
def test_a_directory_where_one_file_is_expected(project, command):
    result = run(command, "empty", cwd=project)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "empty: is a directory, not a file" in result.stderr


@pytest.mark.parametrize("command", ("graph", "explain", "report", "fix"))
def test_a_file_that_does_not_parse(project, command):
    result = run(command, "broken.py", cwd=project)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "broken.py:4:16: SyntaxError: expected ':'" in result.stderr
    assert "no compile root" not in result.stdout


def test_check_reports_a_file_that_does_not_parse_as_flake8_does(project):
    result = run("check", "broken.py", "model.py", cwd=project)
    assert result.returncode == 1
    assert result.stdout.splitlines() == ["broken.py:4:16: E999 SyntaxError: expected ':'",
                                          "model.py:7:12: SFX101 branch on a tensor's value: `x.sum() > 0` (GB0170); "
                                          "select with torch.where or torch.cond"]


@pytest.mark.parametrize("command", ("graph", "explain", "report", "fix"))
def test_a_file_that_does_not_decode(project, command):
    result = run(command, "latin.py", cwd=project)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "latin.py:3:9: cannot decode as utf-8" in result.stderr


def test_check_reports_a_file_that_does_not_decode(project):
    """flake8 reads it as latin-1 and passes it; Python would refuse to run it: check reports it
    as E902, flake8's code for a file it cannot read."""
    result = run("check", "latin.py", cwd=project)
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("latin.py:3:9: E902 cannot decode as utf-8"), result.stdout


def test_report_lists_the_good_files_and_fails_on_the_bad_ones(project):
    result = run("report", ".", cwd=project)
    assert result.returncode == 2
    assert "model.py" in result.stdout and "1 compile roots, 1 graph breaks" in result.stdout
    assert "broken.py:4:16: SyntaxError" in result.stderr and "latin.py:3:9: cannot decode" in result.stderr


@pytest.mark.parametrize("option", ["--select", "--ignore", "--extend-select", "--extend-ignore"])
def test_check_refuses_an_unknown_code(project, option):
    result = run("check", f"{option}=SFX101,SFX999", "model.py", cwd=project)
    assert result.returncode == 2
    assert "unknown code SFX999" in result.stderr


def test_check_accepts_prefixes_and_other_tools_codes(project):
    result = run("check", "--select=SFX1,E9", "--extend-ignore=W503,C901", "model.py", cwd=project)
    assert result.returncode == 1, result.stderr
    assert "SFX101" in result.stdout


def test_an_unknown_code_in_the_configuration(project):
    (project / "setup.cfg").write_text("[flake8]\nextend-ignore = SFX1O1\n")  # a letter O
    result = run("check", "model.py", cwd=project)
    assert result.returncode == 2
    assert "unknown code SFX1O1" in result.stderr and "setup.cfg" in result.stderr


def test_fix_refuses_an_unknown_code(project):
    result = run("fix", "--select=SFX999", "model.py", cwd=project)
    assert result.returncode == 2
    assert "unknown code SFX999" in result.stderr


def test_the_readme_gate_fails_on_a_mistyped_path(project):
    """README's first command selects E902: flake8 reports a path that does not exist with it."""
    from test_cli import quick_start_commands

    args = quick_start_commands()[0].split("flake8 ", 1)[1].split()[:-1]
    result = subprocess.run([sys.executable, "-m", "flake8", *args, "exmaples/"], capture_output=True, text=True,
                            cwd=project, timeout=120)
    assert result.returncode == 1
    assert "exmaples/:0:1: E902 FileNotFoundError" in result.stdout


def test_flake8_with_the_plugin_refuses_an_unknown_code(project):
    """flake8 checks a code's shape only: `--select=SFX999` selected nothing and passed."""
    result = subprocess.run([sys.executable, "-m", "flake8", "--select=SFX999,E999", "model.py"], capture_output=True,
                            text=True, cwd=project, timeout=120)
    assert result.returncode != 0 and "unknown code SFX999" in result.stderr
    good = subprocess.run([sys.executable, "-m", "flake8", "--select=SFX1,E9", "--extend-ignore=W503", "model.py"],
                          capture_output=True, text=True, cwd=project, timeout=120)
    assert good.returncode == 1 and "SFX101" in good.stdout, good.stderr
