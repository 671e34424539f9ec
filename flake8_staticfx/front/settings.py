"""The [flake8] section `flake8-staticfx check` reads: found, read and normalised as flake8 does.

One source of configuration: the staticfx-* options (config.OPTION_SPECS) and flake8's own
select/ignore/exclude keys are read from the same setup.cfg / tox.ini / .flake8 that flake8
uses, found the way flake8 7 finds it (flake8/options/config.py, `_find_config_file`): from
the current directory upwards, stopping below the home directory, the first of setup.cfg,
tox.ini and .flake8 that has a [flake8] (or [flake8:local-plugins]) section.

This mirrors flake8 instead of importing it: flake8's loader is internal API
(`flake8.options.config`), it needs flake8's OptionManager to type the values, and importing
flake8 costs the standalone command time for nothing it lints. The mirror is small and
tests/test_check.py holds it to flake8's answer on the same files.
"""
from __future__ import annotations

import argparse
import configparser
import os
from dataclasses import dataclass, field
from typing import Any

from ..config import OPTION_SPECS, parse_config_value, split_list, version_value

CANDIDATES = ("setup.cfg", "tox.ini", ".flake8")
DEFAULT_EXCLUDE = (".svn", "CVS", ".bzr", ".hg", ".git", "__pycache__", ".tox", ".nox", ".eggs", "*.egg")
DEFAULT_FILENAME = ("*.py",)
# flake8's own keys that decide what is linted and reported, beside the staticfx-* options
# (and per-file-ignores, kept as text for selection.parse_per_file_ignores).
LIST_KEYS = ("select", "ignore", "extend-select", "extend-ignore", "exclude", "extend-exclude", "filename")
PATH_KEYS = ("exclude", "extend-exclude")


class ConfigError(Exception):
    """A configuration file that cannot be used: a usage error (exit status 2)."""


def _stat_key(path: str) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_ino, st.st_dev


def find_config_file(path: str) -> str | None:
    """flake8's `_find_config_file`: the first candidate with a flake8 section, upwards."""
    home = os.path.expanduser("~")
    try:
        home_stat = _stat_key(home) if home != "~" else None
    except OSError:
        home_stat = None
    dir_stat = _stat_key(path)
    while True:
        for candidate in CANDIDATES:
            cfg = configparser.RawConfigParser()
            cfg_path = os.path.join(path, candidate)
            try:
                cfg.read(cfg_path, encoding="UTF-8")
            except (UnicodeDecodeError, configparser.ParsingError):
                continue  # flake8 warns and ignores an unparseable candidate
            if "flake8" in cfg or "flake8:local-plugins" in cfg:
                return cfg_path
        new_path = os.path.dirname(path)
        new_dir_stat = _stat_key(new_path)
        if new_dir_stat == dir_stat or new_dir_stat == home_stat:
            return None
        path, dir_stat = new_path, new_dir_stat


def normalize_path(path: str, parent: str) -> str:
    """flake8's utils.normalize_path: a pattern with a separator (or `.`) is made absolute."""
    if path == "." or os.sep in path or (os.altsep and os.altsep in path):
        path = os.path.abspath(os.path.join(parent, path))
    return path.rstrip(os.sep + (os.altsep or ""))


@dataclass
class Settings:
    """Option values keyed by argparse `dest` (staticfx_fullgraph, extend_ignore, ...)."""

    values: dict[str, Any] = field(default_factory=dict)
    config_file: str | None = None


def load(config: str | None = None, isolated: bool = False, cwd: str | None = None) -> Settings:
    """The [flake8] section's values that check understands, typed and normalised."""
    cwd = os.path.abspath(cwd or ".")
    if isolated:
        return Settings()
    if config is None:
        config = find_config_file(cwd)
        if config is None:
            return Settings()
    cfg = configparser.RawConfigParser()
    try:
        if not cfg.read(config, encoding="UTF-8"):
            raise ConfigError(f"the configuration file does not exist: {config}")
    except (UnicodeDecodeError, configparser.Error) as exc:
        raise ConfigError(f"cannot read {config}: {exc}") from None
    settings = Settings(config_file=config)
    if "flake8" not in cfg:
        return settings
    section = cfg["flake8"]
    cfg_dir = os.path.dirname(os.path.abspath(config))
    specs = {spec.config_name: spec for spec in OPTION_SPECS}
    for key in section:
        # flake8 accepts the option's dest spelling too (staticfx_fullgraph); its keys are
        # the flag names without `--`.
        name = key.replace("_", "-")
        if name in specs:
            try:
                settings.values[specs[name].dest] = parse_config_value(specs[name], section[key])
            except ValueError as exc:
                raise ConfigError(f"{config}: {exc}") from None
        elif name == "per-file-ignores":
            settings.values["per_file_ignores"] = section[key]
        elif name in LIST_KEYS:
            items = list(split_list(section[key]))
            if name in PATH_KEYS:
                items = [normalize_path(item, cfg_dir) for item in items]
            settings.values[name.replace("-", "_")] = items
    return settings


# -- the staticfx-* options on a command line --------------------------------------------------

def add_analysis_arguments(parser: argparse.ArgumentParser) -> None:
    """Every staticfx-* option as a flag (None when not given, so that [flake8] decides)."""
    group = parser.add_argument_group("analysis options (the plugin's; also read from [flake8])")
    for spec in OPTION_SPECS:
        text = spec.help.replace("%(default)s", str(spec.default_value))
        if spec.kind == "bool":
            group.add_argument(spec.flag, action="store_true", default=None, help=text)
        elif spec.kind == "int":
            group.add_argument(spec.flag, type=int, default=None, metavar="N", help=text)
        elif spec.kind == "version":
            group.add_argument(spec.flag, type=version_value, default=None, metavar="X.Y", help=text)
        elif spec.kind == "choice":
            group.add_argument(spec.flag, choices=spec.choices, default=None, help=text)
        else:
            group.add_argument(spec.flag, default=None, metavar="LIST", help=text)


def analysis_values(args: argparse.Namespace, settings: Settings) -> dict:
    """The [flake8] section's values, the staticfx-* flags given on the command line winning."""
    values = dict(settings.values)
    for spec in OPTION_SPECS:
        given = getattr(args, spec.dest, None)
        if given is not None:
            values[spec.dest] = split_list(given) if spec.kind == "list" else given
    return values
