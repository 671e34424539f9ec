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
    # filters out, so such a file passed the hook.
    assert hook["entry"] == "flake8 --select=SFX,E999"
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


def _readme_config() -> str:
    """README's .pre-commit-config.yaml for this repository's own hook."""
    section = README.split("## pre-commit and CI", 1)[1]
    return re.search(r"```yaml\n(# \.pre-commit-config\.yaml\n.*?)```", section, flags=re.S)[1]


def test_readme_config_pins_this_release():
    from flake8_staticfx import __version__

    yaml = pytest.importorskip("yaml")
    (repo,) = yaml.safe_load(_readme_config())["repos"]
    assert repo["rev"] == f"v{__version__}"
    assert [hook["id"] for hook in repo["hooks"]] == ["flake8-staticfx"]
    assert os.path.isabs(repo["repo"])  # pre-commit clones it from its own folder: no relative path
    assert "OWNER" not in README and "vX.Y.Z" not in README.split("## Development")[0]


def test_readme_config_works_on_a_clone_tagged_with_the_release(tmp_path):
    """README's snippet, with `repo` pointing at a clone of this tree tagged as the release."""
    pytest.importorskip("pre_commit")
    yaml = pytest.importorskip("yaml")
    snap = _snapshot(tmp_path)
    config = yaml.safe_load(_readme_config())
    _git("tag", config["repos"][0]["rev"], cwd=snap)
    config["repos"][0]["repo"] = str(snap)
    project = _project(tmp_path)
    (project / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    _break_syntax(project)
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "pc-home"), PRE_COMMIT_COLOR="never")
    result = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files"], cwd=project, env=env,
                            capture_output=True, text=True, timeout=300)
    out = result.stdout + result.stderr
    if "An unexpected error has occurred" in out or "CalledProcessError" in out:
        pytest.skip(f"pre-commit could not install the hook environment (offline?):\n{out[-2000:]}")
    assert result.returncode == 1, out
    assert f"model.py:{BREAK_LINE}:12: SFX101" in out and "broken.py:4:" in out, out
