"""What a user pins: the version, its changelog entry, the Pythons declared and tested."""
from __future__ import annotations

import configparser
import re
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
