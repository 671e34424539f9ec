"""What a user pins: the version, its changelog entry, the Pythons declared and tested."""
from __future__ import annotations

import configparser
import re
import subprocess
import sys
from pathlib import Path

from flake8_staticfx import __version__

ROOT = Path(__file__).resolve().parent.parent


def test_changelog_has_a_section_for_this_version():
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    versions = re.findall(r"^## (\d+\.\d+\.\d+)\b", changelog, flags=re.M)
    assert versions[0] == __version__  # the newest first
    assert versions == sorted(versions, key=lambda v: tuple(map(int, v.split("."))), reverse=True)


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
