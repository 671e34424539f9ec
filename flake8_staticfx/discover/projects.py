"""The project a file belongs to and the installed libraries it calls: found by path, their
modules parsed on demand and cached per process."""
from __future__ import annotations

import ast
import os
import sys
from collections import OrderedDict
from dataclasses import dataclass

from astroid import nodes

from ..torch_versions import MODELED, facts
from .parse import parse_source
from .reads import Reads, note, note_reads, recording, remembered

PROJECT_CACHE_SIZE = 64
# Imported project modules larger than this (characters) are not analysed whole: their classes
# stay opaque, and a top-level function of one is followed in a slice of the module
# (OversizedModule.function_slice). A model family's file with its registrations is below
# (timm's resnet.py is 107 KB), and so is a research package's one-file core
# (vector-quantize-pytorch's is 51 KB); transformers' cache_utils.py (120 KB) and
# modeling_outputs.py (118 KB), which its model files import, are above: reading them cost a
# typical model file 115 ms more (measured, 0.27 -> 0.39 s), and modeling_utils.py is 280 KB.
MAX_PROJECT_MODULE_SIZE = 110_000
# Packages whose meaning comes from our tables, never from their sources (linting torch's own
# tree, or a file beside an installed torch, must not inline torch).
NEVER_PROJECT = frozenset({"torch"})
# Packages never followed as libraries: torch and what ships with it, the third-party packages
# a modeled dynamo skips (trace_rules.py THIRDPARTY_SKIPLIST, generated: a call into them is not
# traced, and numpy's meaning comes from our tables; the same list in 2.13 to 2.15), einops
# (dynamo registers it itself, torch/_dynamo/decorators.py _allow_in_graph_einops: its calls do
# not break), and the standard library.
NEVER_FOLLOWED = NEVER_PROJECT | {"functorch", "torchgen", "einops"} \
    | frozenset().union(*(facts(version).thirdparty_skiplist for version in MODELED)) \
    | frozenset(sys.stdlib_module_names) | frozenset(sys.builtin_module_names)
LIBRARY_PACKAGES_KEPT = 64  # per search path: each keeps its own bounded parse cache


def is_oversized(size: int) -> bool:
    """Is a module of `size` characters too large to analyse whole (MAX_PROJECT_MODULE_SIZE)?"""
    return size > MAX_PROJECT_MODULE_SIZE


def project_root(path: str) -> tuple[str, str]:
    """(root directory, dotted module name) the way pylint finds them: walk up __init__.py."""
    path = os.path.abspath(path)
    directory, base = os.path.split(path)
    stem = os.path.splitext(base)[0]
    parts = [] if stem == "__init__" else [stem]
    while _noted_isfile(os.path.join(directory, "__init__.py")):
        directory, package = os.path.split(directory)
        parts.insert(0, package)
        if not package:
            break
    return directory, ".".join(parts) or stem


@dataclass
class SourceModule:
    node: nodes.Module
    path: str
    modname: str
    source: str | None = None  # the text, where known: a cheap test before walking the tree
    # A slice of a module over MAX_PROJECT_MODULE_SIZE (OversizedModule.function_slice): the
    # names our tables know keep their tables' meaning in it, as when the module was opaque.
    sliced: bool = False


# The texts an editor holds unsaved, by absolute path, read instead of the files on disk: the
# language server sets them (from its analysis thread) to its other open buffers, so that a
# buffer is analysed against the project as the user sees it.
UNSAVED: dict[str, str] = {}


class Project:
    """Files of one project, parsed on demand and cached (bounded, keyed by their text).

    `packages` limits the project to some top-level packages: an installed library's root is
    site-packages, where its neighbours are other libraries, not the project.
    """

    def __init__(self, root: str, packages: frozenset[str] | None = None):
        self.root = root
        self.packages = packages
        self._cache: OrderedDict[str, tuple[str, SourceModule | None]] = OrderedDict()

    def module_path(self, modname: str) -> str | None:
        return self.module_lookup(modname)[0]

    def module_lookup(self, modname: str) -> tuple[str | None, tuple[str, ...]]:
        """The path of module `modname` in the project (None where it has none), and the
        candidate paths tested for it (noted), which a caller keeping the answer notes again."""
        top = modname.split(".", 1)[0]
        if top in NEVER_PROJECT or (self.packages is not None and top not in self.packages):
            return None, ()
        base = os.path.join(self.root, modname.replace(".", os.sep))  # one join: ~3,000 lookups a file
        if _noted_isfile(base + ".py"):
            return base + ".py", (base + ".py",)
        package = os.path.join(base, "__init__.py")
        return package if _noted_isfile(package) else None, (base + ".py", package)

    def load(self, modname: str) -> SourceModule | None:
        """The module parsed, reusing the last parse while the file's text is unchanged."""
        path = self.module_path(modname)
        source = None if path is None else module_text(path)
        if path is None or source is None:
            return None
        if is_oversized(len(source)):
            return None  # framework-sized modules cost more to parse than they tell
        cached = self._cache.get(path)
        if cached and cached[0] == source:
            self._cache.move_to_end(path)
            return cached[1]
        if cached:
            _count_dropped(1)  # the text changed: the old parse goes
        loaded = None
        try:
            loaded = SourceModule(parse_source(ast.parse(source), modname, path, source, kept=True), path, modname, source)
        except (SyntaxError, ValueError, RecursionError):
            pass
        self._cache[path] = (source, loaded)
        if len(self._cache) > PROJECT_CACHE_SIZE:
            self._cache.popitem(last=False)
            _count_dropped(1)
        return loaded


def module_text(path: str) -> str | None:
    """The text of the module at `path`: an editor's unsaved buffer, else the file's."""
    source = UNSAVED.get(path)
    if source is None:
        try:
            with open(path, encoding="utf-8") as handle:
                source = handle.read()
        except (OSError, UnicodeDecodeError):
            return None
    return source


# How many cached parses were dropped in this process: a tree dropped after the plugin froze
# it out of the garbage collector (plugin._settle_collector) is freed only once thawed.
_evicted_parses = 0


def evicted_parses() -> int:
    return _evicted_parses


def _count_dropped(parses: int) -> None:
    global _evicted_parses  # noqa: PLW0603 - one counter per process
    _evicted_parses += parses


def _dropped(project: Project | None) -> None:
    if project is not None:
        _count_dropped(len(project._cache))  # noqa: SLF001 - the module's own class


_PROJECTS: OrderedDict[tuple[str, str | None], Project] = OrderedDict()


def project_for(root: str, modname: str) -> Project:
    """The project of a file: every package under its root, or only its own package when
    the root holds installed distributions."""
    own = modname.split(".", 1)[0] if is_install_dir(root) else None
    project = _PROJECTS.get((root, own))
    if project is None:
        project = _PROJECTS[(root, own)] = Project(root, frozenset({own}) if own else None)
        if len(_PROJECTS) > 8:
            _dropped(_PROJECTS.popitem(last=False)[1])
    return project


class Libraries:
    """Installed packages, found by path on an ordered search path, each read as a `Project`
    limited to its own top-level package (so its parses are cached like the project's).

    Located with os.path only: importing a package, or `find_spec` of a submodule (which
    imports its parents), would run the library's code.
    """

    def __init__(self, search_path: tuple[str, ...]):
        self.search_path = search_path
        # Each package with the paths its search tested, noted again whenever it is asked for.
        self._packages: OrderedDict[str, tuple[Project | None, Reads]] = OrderedDict()

    def package(self, top: str) -> Project | None:
        """The project of top-level package (or module) `top`: the first directory of the
        search path holding its Python source; None if followed nowhere."""
        if top in self._packages:
            self._packages.move_to_end(top)
            found, tested = self._packages[top]
            note_reads(tested)
            return found
        found = None
        with recording() as tested:
            if top not in NEVER_FOLLOWED and top.isidentifier():
                for directory in self.search_path:
                    if _noted_isfile(os.path.join(directory, top, "__init__.py")) \
                            or _noted_isfile(os.path.join(directory, top + ".py")):
                        found = Project(directory, frozenset({top}))
                        break
        self._packages[top] = found, tested
        if len(self._packages) > LIBRARY_PACKAGES_KEPT:
            _dropped(self._packages.popitem(last=False)[1][0])
        return found

    def missing(self, qname: str) -> str | None:
        """The top-level package of `qname` when it would be followed but has no source on the
        search path (the linter cannot see inside it); None otherwise."""
        top = qname.split(".", 1)[0]
        if top in NEVER_FOLLOWED or not top.isidentifier() or self.package(top) is not None:
            return None
        return top


NO_LIBRARIES = Libraries(())
_LIBRARIES: OrderedDict[tuple[str, ...], Libraries] = OrderedDict()


def libraries_for(configured: tuple[str, ...], root: str) -> Libraries:
    """The libraries a file of the project at `root` can call, searched in this order: the
    configured directories; `root` itself when it is a site-packages (the linted file is an
    installed library's, its neighbours are the libraries it calls); the site-packages of
    $VIRTUAL_ENV and of a `.venv` or `venv` at the project root or in the working directory
    (flake8 often runs from an environment of its own: pre-commit, pipx); then this
    interpreter's sys.path. One `Libraries` per search path and process."""
    candidates = [*configured, *([root] if is_install_dir(root) else [])]
    venvs = [os.environ.get("VIRTUAL_ENV"), *(os.path.join(directory, name) for directory in (root, os.getcwd())
                                              for name in (".venv", "venv"))]
    for venv in venvs:
        if venv:
            candidates.extend(venv_site_packages(venv))
    candidates.extend(entry for entry in sys.path if entry)
    for candidate in candidates:
        note(os.path.abspath(candidate))
    search_path = tuple(dict.fromkeys(os.path.abspath(c) for c in candidates if os.path.isdir(c)))
    libraries = _LIBRARIES.get(search_path)
    if libraries is None:
        libraries = _LIBRARIES[search_path] = Libraries(search_path)
        if len(_LIBRARIES) > 8:
            for project, _ in _LIBRARIES.popitem(last=False)[1]._packages.values():  # noqa: SLF001
                _dropped(project)
    return libraries


def venv_site_packages(venv: str) -> list[str]:
    """The site-packages directories of a virtual environment, by path: lib/pythonX.Y/site-packages
    (this interpreter's version first), Lib/site-packages on Windows."""
    own = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    note(os.path.join(venv, "lib"))
    try:
        versions = sorted((e.name for e in os.scandir(os.path.join(venv, "lib"))
                           if e.name.startswith("python") and e.is_dir()), key=lambda name: name != own)
    except OSError:
        versions = []
    found = [os.path.join(venv, "lib", version, "site-packages") for version in versions]
    found.append(os.path.join(venv, "Lib", "site-packages"))
    for directory in found:
        note(directory)
    return [directory for directory in found if os.path.isdir(directory)]


@remembered(maxsize=32)
def is_install_dir(directory: str) -> bool:
    if os.path.basename(directory) in ("site-packages", "dist-packages"):
        return True
    note(directory)  # its entries: a .dist-info among them
    try:
        return any(name.endswith(".dist-info") for name in os.listdir(directory))
    except OSError:
        return False


def _noted_isfile(path: str) -> bool:
    note(path)
    return os.path.isfile(path)
