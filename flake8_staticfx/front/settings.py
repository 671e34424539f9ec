"""The configuration the commands read: the [flake8] section, found, read and normalised as
flake8 does, and pyproject.toml's [tool.flake8-staticfx] table on top of it.

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
from .selection import unknown_codes

CANDIDATES = ("setup.cfg", "tox.ini", ".flake8")
DEFAULT_EXCLUDE = (".svn", "CVS", ".bzr", ".hg", ".git", "__pycache__", ".tox", ".nox", ".eggs", "*.egg")
DEFAULT_FILENAME = ("*.py",)
# flake8's own keys that decide what is linted and reported, beside the staticfx-* options
# (and per-file-ignores, kept as text for selection.parse_per_file_ignores).
LIST_KEYS = ("select", "ignore", "extend-select", "extend-ignore", "exclude", "extend-exclude", "filename")
PATH_KEYS = ("exclude", "extend-exclude")
CODE_KEYS = ("select", "ignore", "extend-select", "extend-ignore")


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
    """The values that check understands, typed and normalised: the [flake8] section flake8
    would read, then pyproject.toml's [tool.flake8-staticfx] table, whose values win; or only
    the file `config` names (a .toml file: its table)."""
    cwd = os.path.abspath(cwd or ".")
    if isolated:
        return Settings()
    if config is not None and config.endswith(".toml"):
        return load_pyproject(config, Settings())
    settings = load_flake8(config or find_config_file(cwd))
    pyproject = find_pyproject(cwd) if config is None else None
    return load_pyproject(pyproject, settings) if pyproject else settings


def load_flake8(config: str | None) -> Settings:
    """The [flake8] section of `config`."""
    if config is None:
        return Settings()
    cfg = configparser.RawConfigParser()
    try:
        if not cfg.read(config, encoding="UTF-8"):
            raise ConfigError(f"the configuration file does not exist: {config}")
    except (UnicodeDecodeError, configparser.Error) as exc:
        raise ConfigError(f"cannot read {config}: {exc}") from None
    settings = Settings(config_file=config)
    if "flake8" in cfg:
        read_section(dict(cfg["flake8"]), config, settings)
    return settings


def read_section(section: dict[str, str], config: str, settings: Settings) -> None:
    """A section's keys (the flag names without `--`; flake8 accepts the dest spelling too,
    staticfx_fullgraph), as text, into `settings`; keys of other tools are left alone."""
    cfg_dir = os.path.dirname(os.path.abspath(config))
    specs = {spec.config_name: spec for spec in OPTION_SPECS}
    for key, text in section.items():
        name = key.replace("_", "-")
        if name in specs:
            try:
                value = parse_config_value(specs[name], text)
                if specs[name].kind == "path" and value:
                    value = normalize_path(value, cfg_dir)  # as flake8's normalize_paths: from the file's directory
                settings.values[specs[name].dest] = value
            except ValueError as exc:
                raise ConfigError(f"{config}: {exc}") from None
        elif name == "per-file-ignores":
            settings.values["per_file_ignores"] = text
        elif name in LIST_KEYS:
            items = list(split_list(text))
            if name in CODE_KEYS and unknown_codes(items):
                raise ConfigError(f"{config}: {name}: unknown code {', '.join(unknown_codes(items))}")
            if name in PATH_KEYS:
                items = [normalize_path(item, cfg_dir) for item in items]
            settings.values[name.replace("-", "_")] = items


# -- pyproject.toml's [tool.flake8-staticfx] ----------------------------------------------------

PYPROJECT = "pyproject.toml"
TOOL_TABLE = "flake8-staticfx"


def _read_toml(path: str) -> dict:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: setup.cfg installs tomli there
        import tomli as tomllib
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None


def find_pyproject(path: str) -> str | None:
    """The nearest pyproject.toml upwards from `path` with a [tool.flake8-staticfx] table (as
    ruff looks for its own: the first pyproject.toml that configures the tool)."""
    while True:
        candidate = os.path.join(path, PYPROJECT)
        if os.path.isfile(candidate) and TOOL_TABLE in _read_toml(candidate).get("tool", {}):
            return candidate
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent


def _toml_text(key: str, value: Any, path: str) -> str:
    """A TOML value as the text the [flake8] section would hold for it."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, str)):
        return str(value)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return ",".join(value)
    if key == "per-file-ignores" and isinstance(value, dict):
        return " ".join(f"{pattern}:{','.join(codes) if isinstance(codes, list) else codes}"
                        for pattern, codes in value.items())
    raise ConfigError(f"{path}: [tool.{TOOL_TABLE}] {key}: expected a string, number, boolean or list "
                      f"of strings, not {value!r}")


def load_pyproject(path: str, settings: Settings) -> Settings:
    """`settings` with the [tool.flake8-staticfx] table of `path` on top."""
    table = _read_toml(path).get("tool", {}).get(TOOL_TABLE)
    if table is None:
        raise ConfigError(f"{path} has no [tool.{TOOL_TABLE}] table")
    known = {spec.config_name for spec in OPTION_SPECS} | {*LIST_KEYS, "per-file-ignores"}
    section = {}
    for key, value in table.items():
        # the table is this tool's: `fullgraph` says what [flake8]'s `staticfx-fullgraph` says
        name = next((n for n in (key.replace("_", "-"), f"staticfx-{key.replace('_', '-')}") if n in known), None)
        if name is None:  # a key this tool does not know is a mistake, not another tool's
            raise ConfigError(f"{path}: [tool.{TOOL_TABLE}]: unknown key {key}")
        section[name] = _toml_text(key, value, path)
    read_section(section, path, settings)
    settings.config_file = path
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
        elif spec.kind == "path":
            group.add_argument(spec.flag, default=None, metavar="DIR", help=text)
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
