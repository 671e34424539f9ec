"""The pre-commit hook in .pre-commit-hooks.yaml, run the way pre-commit runs it.

`pre-commit try-repo` installs the hook's environment from this repository (with flake8 and
astroid from PyPI) into a throw-away store and runs it on a temporary git repository. It only
sees committed (or tracked and modified) files, so the test first snapshots the working tree,
untracked files included, into a fresh git repository. When pre-commit is missing or the
environment cannot be installed (offline), that test is skipped; the second test runs the hook's
`entry` from the YAML directly and needs neither.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HOOKS_FILE = ROOT / ".pre-commit-hooks.yaml"
README = (ROOT / "README.md").read_text(encoding="utf-8")

MODEL = """\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        x = self.fc(x)
        if x.sum() > 0:
            return x
        return -x
"""
BREAK_LINE = 12  # `if x.sum() > 0:`

GIT = ("git", "-c", "user.email=test@example.invalid", "-c", "user.name=test",
       "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main")


def _git(*args, cwd):
    subprocess.run([*GIT, *args], cwd=cwd, check=True, capture_output=True)


def _hook():
    yaml = pytest.importorskip("yaml")
    hooks = yaml.safe_load(HOOKS_FILE.read_text())
    (hook,) = [h for h in hooks if h["id"] == "flake8-staticfx"]
    return hook


def test_hook_manifest():
    hook = _hook()
    # E999 too: flake8 reports a file that does not parse as E999, which --select=SFX alone
    # filters out, so such a file passed the hook; E902 for a file it cannot read.
    assert hook["entry"] == "flake8 --select=SFX,E902,E999"
    assert hook["language"] == "python"
    assert hook["types"] == ["python"]
    assert hook["require_serial"] is True


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (project / "model.py").write_text(MODEL)
    (project / "clean.py").write_text("import torch\n\n\ndef f(x):\n    return x + 1\n")
    _git("init", "-q", cwd=project)
    _git("add", "-A", cwd=project)
    return project


def _silence(project: Path) -> None:
    path = project / "model.py"
    lines = path.read_text().splitlines()
    lines[BREAK_LINE - 1] += "  # noqa: SFX101"
    path.write_text("\n".join(lines) + "\n")
    _git("add", "-A", cwd=project)


def _break_syntax(project: Path) -> None:
    (project / "broken.py").write_text("import torch\n\n\ndef forward(x)\n    return x\n")
    _git("add", "-A", cwd=project)


def _snapshot(tmp_path: Path) -> Path:
    """This repository's working tree (tracked and untracked, not ignored) as a one-commit repo."""
    files = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=ROOT,
                           check=True, capture_output=True).stdout.decode().split("\0")
    snap = tmp_path / "snapshot"
    for name in filter(None, files):
        source = ROOT / name
        if source.is_file():
            target = snap / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
    _git("init", "-q", cwd=snap)
    _git("add", "-A", cwd=snap)
    _git("commit", "-q", "-m", "snapshot", cwd=snap)
    return snap


def test_pre_commit_try_repo(tmp_path):
    pytest.importorskip("pre_commit")
    snap = _snapshot(tmp_path)
    project = _project(tmp_path)
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pc-home"), PRE_COMMIT_COLOR="never")
    command = [sys.executable, "-m", "pre_commit", "try-repo", str(snap), "flake8-staticfx",
               "--all-files"]

    failed = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True,
                            timeout=300)
    out = failed.stdout + failed.stderr
    if "An unexpected error has occurred" in out or "CalledProcessError" in out:
        pytest.skip(f"pre-commit could not install the hook environment (offline?):\n{out[-2000:]}")
    assert failed.returncode == 1, out
    assert f"model.py:{BREAK_LINE}:12: SFX101" in out, out
    assert "clean.py" not in out.split("- exit code: 1", 1)[-1], out

    _silence(project)
    passed = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True,
                            timeout=300)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout

    _break_syntax(project)
    broken = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True,
                            timeout=300)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "broken.py:4:" in broken.stdout and " E999 SyntaxError" in broken.stdout, broken.stdout


def test_hook_entry_directly(tmp_path):
    """The hook's entry, parsed from the YAML, run on the files the way pre-commit passes them."""
    hook = _hook()
    project = _project(tmp_path)
    argv = shlex.split(hook["entry"])
    assert argv[0] == "flake8"
    command = [sys.executable, "-m", "flake8", *argv[1:], "model.py", "clean.py"]

    failed = subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=120)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert failed.stdout.startswith(f"model.py:{BREAK_LINE}:12: SFX101"), failed.stdout
    assert len(failed.stdout.splitlines()) == 1, failed.stdout

    _silence(project)
    passed = subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=120)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert passed.stdout == ""

    _break_syntax(project)
    broken = subprocess.run([*command, "broken.py"], cwd=project, capture_output=True, text=True, timeout=120)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert broken.stdout.startswith("broken.py:4:") and " E999 SyntaxError" in broken.stdout, broken.stdout


CLONE = "/opt/flake8-staticfx"  # where README's commands expect the clone


def _readme_commands() -> list[str]:
    """README's pre-commit commands: try-repo, then the script that pins the clone's commit."""
    section = README.split("\n## pre-commit", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```bash\n(.*?)```", section, flags=re.S)


def _run_readme_command(command: str, snap: Path, project: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    """A README command as written, with the clone at `snap` and this interpreter's pre-commit."""
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pc-home"), PRE_COMMIT_COLOR="never",
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    return subprocess.run(["bash", "-euc", command.replace(CLONE, str(snap))], cwd=project, env=env,
                          capture_output=True, text=True, timeout=600)


def test_readme_try_repo_command(tmp_path):
    pytest.importorskip("pre_commit")
    try_repo, _ = _readme_commands()
    assert try_repo.strip() == f"pre-commit try-repo {CLONE} flake8-staticfx --all-files"
    project = _project(tmp_path)
    result = _run_readme_command(try_repo, _snapshot(tmp_path), project, tmp_path)
    out = result.stdout + result.stderr
    if "An unexpected error has occurred" in out or "CalledProcessError" in out:
        pytest.skip(f"pre-commit could not install the hook environment (offline?):\n{out[-2000:]}")
    assert result.returncode == 1, out
    assert f"model.py:{BREAK_LINE}:12: SFX101" in out, out


def test_readme_config_pins_a_commit_of_the_clone(tmp_path):
    """README's script writes a config whose rev is the clone's commit (no tag needed), and the
    hook runs from it: it fails on the break and on a file that does not parse."""
    pytest.importorskip("pre_commit")
    yaml = pytest.importorskip("yaml")
    _, pin = _readme_commands()
    snap = _snapshot(tmp_path)
    assert not subprocess.run(["git", "tag"], cwd=snap, capture_output=True, text=True).stdout
    project = _project(tmp_path)
    _break_syntax(project)
    result = _run_readme_command(pin, snap, project, tmp_path)
    out = result.stdout + result.stderr
    if "An unexpected error has occurred" in out or "CalledProcessError" in out:
        pytest.skip(f"pre-commit could not install the hook environment (offline?):\n{out[-2000:]}")
    (repo,) = yaml.safe_load((project / ".pre-commit-config.yaml").read_text())["repos"]
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=snap, capture_output=True, text=True).stdout.strip()
    assert repo == {"repo": str(snap), "rev": head, "hooks": [{"id": "flake8-staticfx"}]}
    assert result.returncode == 1, out
    assert f"model.py:{BREAK_LINE}:12: SFX101" in out and "broken.py:4:" in out, out
