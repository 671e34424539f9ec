"""What a user pins: the version, its changelog entry, the Pythons declared and tested."""
from __future__ import annotations

import configparser
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest
from test_cli import quick_start_commands

from flake8_staticfx import __version__
from flake8_staticfx.torch_versions import MODELED

ROOT = Path(__file__).resolve().parent.parent


def test_changelog_has_a_section_for_this_version():
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## (\d+\.\d+\.\d+)\b", changelog, flags=re.M)
    assert versions[0] == __version__  # the newest first
    assert versions == sorted(versions, key=lambda v: tuple(map(int, v.split("."))), reverse=True)


def test_readme_names_this_release():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"`v{__version__}`" in readme.split("\n## pre-commit", 1)[1].split("\n## ", 1)[0]


def test_declared_pythons_are_the_tested_ones():
    setup = configparser.ConfigParser()
    setup.read(ROOT / "setup.cfg")
    classifiers = setup["metadata"]["classifiers"]
    declared = re.findall(r"Programming Language :: Python :: (3\.\d+)", classifiers)
    assert declared == ["3.10", "3.11", "3.12", "3.13"]
    assert setup["options"]["python_requires"].strip() == ">=3.10"
    tox = configparser.ConfigParser()
    tox.read(ROOT / "tox.ini")
    envs = [env.strip() for env in tox["tox"]["env_list"].split(",")]
    # 3.11 is CI's, with torch (.ci/run); tox covers the others without it.
    assert envs == [f"py{v.replace('.', '')}" for v in declared if v != "3.11"]


def test_every_module_imports_first():
    """A user's tool may import any module first (`from flake8_staticfx.interpret.init_interpreter import
    ...`); an import cycle shows only when its second module is the first imported."""
    package = ROOT / "flake8_staticfx"
    names = sorted(".".join(path.relative_to(ROOT).with_suffix("").parts)
                   for path in package.rglob("*.py") if path.name != "__main__.py")
    script = (
        "import importlib, sys\n"
        "failed = []\n"
        f"for name in {names!r}:\n"
        "    for loaded in [m for m in sys.modules if m.startswith('flake8_staticfx')]:\n"
        "        del sys.modules[loaded]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except ImportError as error:\n"
        "        failed.append(f'{name}: {error}')\n"
        "print('\\n'.join(failed))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


def _run(command: list, **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run([str(part) for part in command], capture_output=True, text=True, timeout=600, **kwargs)
    assert result.returncode == 0, f"{command}\n{result.stdout}\n{result.stderr}"
    return result


def test_wheel_and_sdist_build_and_the_wheel_runs_in_a_clean_venv(tmp_path):
    """What README's Install section says: the wheel builds, installs into a virtual environment
    of its own and lints; the sdist holds what a wheel is built from. Offline: no build isolation,
    and the wheel's dependencies (flake8, astroid, libcst) are this environment's, appended to the
    new environment's path after its own site-packages, so the installed wheel is what runs."""
    pytest.importorskip("setuptools")
    dist = tmp_path / "dist"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    _run([*pip, "wheel", "--no-deps", "--no-build-isolation", "--quiet", "-w", dist, ROOT])
    (wheel,) = dist.glob("flake8_staticfx-*.whl")
    assert wheel.name.startswith(f"flake8_staticfx-{__version__}-py3-none-any")
    with zipfile.ZipFile(wheel) as archive:  # each modeled torch release's dynamo facts (package data)
        assert {f"flake8_staticfx/data/dynamo-{version}.json" for version in MODELED} <= set(archive.namelist())
    sdist = _run([sys.executable, "-c", "import sys; from setuptools import build_meta; "
                  "print(build_meta.build_sdist(sys.argv[1]))", dist], cwd=ROOT).stdout.split()[-1]
    with tarfile.open(dist / sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert {"setup.cfg", "pyproject.toml", "README.md", "flake8_staticfx/rules.py", "flake8_staticfx/front/cli.py"} <= names

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv])
    _run([*pip, "--python", venv / "bin" / "python", "install", "--no-deps", "--quiet", wheel])
    purelib = sysconfig.get_path("purelib")
    (site,) = (venv / "lib").glob("python*/site-packages")
    (site / "zz_dependencies.pth").write_text(purelib + "\n")  # after the wheel's own directory

    project = tmp_path / "project"
    shutil.copytree(ROOT / "examples", project / "examples")
    python = venv / "bin" / "python"
    where = _run([python, "-c", "import flake8_staticfx; print(flake8_staticfx.__file__, flake8_staticfx.__version__)"],
                 cwd=project).stdout.split()
    assert where == [str(site / "flake8_staticfx" / "__init__.py"), __version__]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    sample = re.search(r"The first command prints.*?```text\n(.*?)```", readme, flags=re.S)[1]
    args = quick_start_commands()[0].split("flake8 ", 1)[1].split()  # README's first command
    plugin = subprocess.run([python, "-m", "flake8", *args], cwd=project,
                            capture_output=True, text=True, timeout=300)
    assert (plugin.returncode, plugin.stdout) == (1, sample), plugin.stderr
    command = subprocess.run([venv / "bin" / "flake8-staticfx", "check", "examples/"], cwd=project,
                             capture_output=True, text=True, timeout=300)
    assert (command.returncode, command.stdout) == (1, sample), command.stderr
