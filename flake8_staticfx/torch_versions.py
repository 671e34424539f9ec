"""Which torch the answers are for, and what that torch's dynamo knows.

The linter models the releases in MODELED. The version it answers for is, the first that says:

1. `--staticfx-torch-version X.Y` (flake8 option, `[flake8]` key, every CLI command): the user's
   word wins over what is found;
2. the torch installed where the linter looks for libraries (a `torch-*.dist-info/METADATA` on
   the search path `discover.libraries_for` builds: the project's venv, $VIRTUAL_ENV, sys.path);
3. the project's own pins: `pyproject.toml`, `requirements*.txt`, `setup.cfg` at the project
   root or above it (the newest modeled version the pin allows);
4. the newest modeled version, said once on stderr.

Nothing is imported: metadata and pins are read as text. What dynamo itself lists (its graph
break registry, trace_rules.py's skip lists and in-graph functions) is data generated from each
release's wheel by scripts/gen_dynamo_facts.py into data/dynamo-X.Y.json.
"""
from __future__ import annotations

import functools
import glob
import json
import os
import re
import sys
from dataclasses import dataclass
from typing import Callable, Generic, Mapping, TypeVar

from .discover.reads import note, remembered

MODELED = ("2.13", "2.14", "2.15")
NEWEST = MODELED[-1]
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
PIN_FILES = ("pyproject.toml", "setup.cfg")
MAX_PIN_SEARCH_DEPTH = 4  # directories above the project root searched for pins

T = TypeVar("T")


def minor_of(text: str) -> str | None:
    """'2.14.1', '2.14', '2.14.0+cu128' -> '2.14'; None for text that is not a version."""
    match = re.match(r"\s*(\d+)\.(\d+)", text)
    return f"{int(match[1])}.{int(match[2])}" if match else None


def _key(minor: str) -> tuple[int, int]:
    major, _, rest = minor.partition(".")
    return int(major), int(rest)


def nearest_modeled(minor: str) -> str:
    """The modeled version answering for `minor`: itself, else the oldest (for older releases)
    or the newest (for newer ones)."""
    if minor in MODELED:
        return minor
    return MODELED[0] if _key(minor) < _key(MODELED[0]) else NEWEST


@dataclass(frozen=True)
class ByVersion(Generic[T]):
    """A fact that moved between releases: its value from each version on, oldest first
    (`ByVersion((("2.13", "GB0007"), ("2.14", "GB0377")))`)."""

    since: tuple[tuple[str, T], ...]

    def at(self, version: str) -> T:
        value = self.since[0][1]
        for first, later in self.since:
            if _key(first) <= _key(version):
                value = later
        return value

    def span(self, version: str) -> str:
        """The modeled versions that share `version`'s value, as a message says it:
        'torch 2.13 only', 'torch 2.14+', 'torch 2.13-2.14'."""
        value = self.at(version)
        same = [v for v in MODELED if self.at(v) == value]
        if len(same) == len(MODELED):
            return ""
        if len(same) == 1:
            return f"torch {same[0]} only"
        return f"torch {same[0]}+" if same[-1] == NEWEST else f"torch {same[0]}-{same[-1]}"


def since(first: str, before, after) -> ByVersion:
    """`before` up to the release ahead of `first`, `after` from `first` on."""
    return ByVersion(((MODELED[0], before), (first, after)))


def in_each_release(fact: Callable[[DynamoFacts], T]) -> ByVersion[T]:
    """A fact read from each modeled release's generated data."""
    return ByVersion(tuple((version, fact(facts(version))) for version in MODELED))


@dataclass(frozen=True)
class DynamoFacts:
    """What one release's dynamo lists, as generated into data/dynamo-X.Y.json."""

    torch: str  # the exact release the data was read from
    graph_breaks: Mapping[str, tuple[str, ...]]  # GB id -> its titles (Gb_type)
    thirdparty_skiplist: frozenset[str]
    mod_skiplist: frozenset[str]
    torch_functions: Mapping[str, str]  # qualified name -> "in_graph", "skip" or "inline"

    def title(self, gb_id: str) -> str:
        titles = self.graph_breaks.get(gb_id)
        return titles[0] if titles else ""

    def skips_torch_function(self, qname: str, by_module: bool) -> bool:
        """Does dynamo skip calling this torch function (GB0007)? A rule says so, or (`by_module`:
        for a Python function, which dynamo places by its file) it sits right in a module of
        MOD_SKIPLIST with no rule tracing it (torch.mps.is_available in 2.13)."""
        rule = self.torch_functions.get(qname)
        if rule is not None:
            return rule == "skip"
        return by_module and qname.rpartition(".")[0] in self.mod_skiplist


@functools.lru_cache(maxsize=None)
def facts(minor: str) -> DynamoFacts:
    with open(os.path.join(DATA, f"dynamo-{minor}.json"), encoding="utf-8") as handle:
        data = json.load(handle)
    return DynamoFacts(
        torch=data["torch"],
        graph_breaks={gb_id: tuple(titles) for gb_id, titles in data["graph_breaks"].items()},
        thirdparty_skiplist=frozenset(data["thirdparty_skiplist"]),
        mod_skiplist=frozenset(data["mod_skiplist"]),
        torch_functions=data["torch_functions"],
    )


# -- the version in use ----------------------------------------------------------------------

@dataclass(frozen=True)
class TorchVersion:
    """The modeled release the answers are for, and how it was chosen."""

    minor: str  # "2.14"
    source: str  # "option", "installed", "pinned" or "default"
    found: str = ""  # what was read: "2.14.1", "torch>=2.13,<2.15"
    where: str = ""  # the file it was read from

    def describe(self) -> str:
        """'torch 2.14 (installed: 2.14.1)', as --version, explain and report say it."""
        if self.source == "default":
            return f"torch {self.minor} (the newest modeled; none installed or pinned)"
        if self.source == "option":
            return f"torch {self.minor} (--staticfx-torch-version {self.found})"
        return f"torch {self.minor} ({self.source}: {self.found})"

    def as_json(self) -> dict:
        return {"version": self.minor, "source": self.source, "found": self.found, "where": self.where}


def installed_torch(search_path: tuple[str, ...]) -> tuple[str, str] | None:
    """(version, METADATA path) of the first torch dist-info on the search path."""
    for directory in search_path:
        note(directory)  # a torch-*.dist-info among its entries
        for metadata in sorted(glob.glob(os.path.join(glob.escape(directory), "torch-*.dist-info", "METADATA"))):
            version = _metadata_version(metadata)
            if version:
                return version, metadata
    return None


def _metadata_version(path: str) -> str:
    note(path)
    try:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("Version:"):
                    return line.split(":", 1)[1].strip()
                if not line.strip():
                    break  # the headers end at the first blank line
    except (OSError, UnicodeDecodeError):
        pass
    return ""


# `torch==2.14.1`, `torch>=2.13,<2.16`, `"torch ~= 2.14"`: a torch requirement in any of the pin files.
_REQUIREMENT = re.compile(r"""(?:^|["'\s,\[])torch\s*(?:\[[^\]]*\])?\s*((?:[<>=!~]=?\s*[\d.*+a-z]+\s*,?\s*)+)""",
                          re.MULTILINE)
_CLAUSE = re.compile(r"([<>=!~]=?)\s*([\d.*]+)")


def allowed(specifier: str) -> list[str]:
    """The modeled versions a specifier (`>=2.13,<2.15`, `==2.14.1`, `~=2.14.0`) allows, by minor version."""
    versions = list(MODELED)
    for operator, text in _CLAUSE.findall(specifier):
        minor = minor_of(text)
        if minor is not None:
            # `<2.15` and `!=2.15.*` speak of all of 2.15.x; `<2.15.1` and `>2.15.0` of a patch in it.
            whole_minor = text.removesuffix(".*").count(".") == 1
            versions = [v for v in versions if _satisfies(_key(v), operator, _key(minor), whole_minor)]
    return versions


def _satisfies(version: tuple[int, int], operator: str, bound: tuple[int, int], whole_minor: bool) -> bool:
    """Does some release of minor `version` satisfy `operator bound`?"""
    if operator in ("==", "==="):
        return version == bound
    if operator == "~=":
        return version >= bound if whole_minor else version == bound
    if operator == ">=":
        return version >= bound
    if operator == ">":
        return version > bound or (not whole_minor and version == bound)
    if operator == "<=":
        return version <= bound
    if operator == "<":
        return version < bound or (not whole_minor and version == bound)
    if operator == "!=":
        return not (whole_minor and version == bound)
    return True


def pinned_torch(root: str) -> tuple[str, str, list[str]] | None:
    """(specifier, file, modeled versions it allows) of the first torch pin found at `root` or
    above it: pyproject.toml, setup.cfg, requirements*.txt, in that order per directory."""
    directory = os.path.abspath(root)
    for _ in range(MAX_PIN_SEARCH_DEPTH + 1):
        note(directory)  # a requirements*.txt among its entries
        candidates = [os.path.join(directory, name) for name in PIN_FILES]
        candidates += sorted(glob.glob(os.path.join(glob.escape(directory), "requirements*.txt")))
        for path in candidates:
            note(path)
            try:
                with open(path, encoding="utf-8") as handle:
                    text = handle.read()
            except (OSError, UnicodeDecodeError):
                continue
            for match in _REQUIREMENT.finditer(text):
                specifier = re.sub(r"\s+", "", match[1]).rstrip(",")
                versions = allowed(specifier)
                if versions:
                    return specifier, path, versions
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return None


_TOLD: set[str] = set()


@remembered(maxsize=64)
def resolve(option: str, search_path: tuple[str, ...], root: str) -> TorchVersion:
    """The version the answers are for (see the module's docstring for the order)."""
    if option:
        minor = minor_of(option)
        if minor is not None:
            return TorchVersion(nearest_modeled(minor), "option", option)
    installed = installed_torch(search_path)
    if installed is not None:
        version, where = installed
        minor = minor_of(version)
        if minor is not None:
            return TorchVersion(nearest_modeled(minor), "installed", version.split("+")[0], where)
    pinned = pinned_torch(root)
    if pinned is not None:
        specifier, where, versions = pinned
        return TorchVersion(versions[-1], "pinned", f"torch{specifier}", where)
    if root not in _TOLD:
        _TOLD.add(root)
        sys.stderr.write(f"flake8-staticfx: no torch installed or pinned for {root}: answering for torch "
                         f"{NEWEST}, the newest modeled (--staticfx-torch-version X.Y to choose)\n")
    return TorchVersion(NEWEST, "default")
