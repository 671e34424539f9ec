"""Which files of a project import a given file: `check --with-importers`.

pre-commit hands a hook only the files a commit changes. A break added to a helper shows up
in the models that call the helper (the analysis follows calls into other files of the
project and reports at the call), so linting the helper alone finds nothing. This index finds
the project's files that import the changed ones, by parsing import statements with `ast`
(nothing is imported or run), so that they are linted too.

The project is what the analysis follows (discover.project_root): a file's root is the first
directory above it without an `__init__.py`, and names resolve to modules under that root.
So the files that can reach a module of root R are the modules directly in R and in its
packages (directories with `__init__.py`, recursively); nothing else is walked, which keeps
the walk out of virtual environments and data directories.

Importers are followed transitively: the analysis of a model that calls into a module that
calls the helper reports the helper's break at the model's call, so a direct importer is not
enough. A file is parsed only when its text names the module it may import (its last
dotted part, or any file of the package itself for a package's `__init__`), which keeps an
index over a large project cheap.
"""
from __future__ import annotations

import ast
import os
from collections import deque
from typing import Iterable

from .discover import project_root


def project_files(root: str) -> list[str]:
    """The .py files whose project root is `root`: its own modules and its packages'."""
    found = []
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return found
    for entry in entries:
        if entry.is_file() and entry.name.endswith(".py"):
            found.append(entry.path)
        elif entry.is_dir() and not entry.name.startswith(".") and \
                os.path.isfile(os.path.join(entry.path, "__init__.py")):
            found.extend(_package_files(entry.path))
    return found


def _package_files(package: str) -> list[str]:
    found = []
    for directory, subdirs, files in os.walk(package):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith(".")
                            and os.path.isfile(os.path.join(directory, d, "__init__.py")))
        found.extend(os.path.join(directory, f) for f in sorted(files) if f.endswith(".py"))
    return found


def imported_modules(tree: ast.Module, modname: str, is_package: bool) -> set[str]:
    """Dotted names of the modules the file imports (a `from m import n` may import m.n)."""
    package = modname.split(".") if is_package else modname.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                found.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if node.level - 1 > len(package):
                    continue
                base = package[:len(package) - (node.level - 1)]
                base = [*base, *(node.module.split(".") if node.module else [])]
            else:
                base = node.module.split(".") if node.module else []
            if not base:
                continue
            found.update(".".join(base[:i]) for i in range(1, len(base) + 1))
            found.update(".".join([*base, alias.name]) for alias in node.names if alias.name != "*")
    return found


class ProjectIndex:
    """The import graph of one project root, built on demand."""

    def __init__(self, root: str):
        self.root = root
        self.files = project_files(root)
        self._text: dict[str, str | None] = {}
        self._imports: dict[str, set[str]] = {}
        self._modname = {path: project_root(path)[1] for path in self.files}
        self.parsed = 0

    def _source(self, path: str) -> str | None:
        if path not in self._text:
            try:
                with open(path, encoding="utf-8") as handle:
                    self._text[path] = handle.read()
            except (OSError, UnicodeDecodeError):
                self._text[path] = None
        return self._text[path]

    def imports_of(self, path: str) -> set[str]:
        if path not in self._imports:
            source = self._source(path)
            modules: set[str] = set()
            if source is not None:
                try:
                    tree = ast.parse(source)
                except (SyntaxError, ValueError, RecursionError):
                    tree = None
                if tree is not None:
                    self.parsed += 1
                    modules = imported_modules(tree, self._modname[path],
                                               os.path.basename(path) == "__init__.py")
            self._imports[path] = modules
        return self._imports[path]

    def direct_importers(self, path: str) -> list[str]:
        """Files of the project that import the module of `path`."""
        modname = project_root(path)[1]
        word = modname.rsplit(".", 1)[-1]
        package_dir = os.path.dirname(os.path.abspath(path)) if os.path.basename(path) == "__init__.py" else None
        found = []
        for other in self.files:
            if os.path.abspath(other) == os.path.abspath(path):
                continue
            source = self._source(other)
            if source is None:
                continue
            # a cheap filter before parsing: an import of `a.b` names `b`, except a relative
            # `from . import x` of a package from inside it
            inside = package_dir is not None and os.path.abspath(other).startswith(package_dir + os.sep)
            if word not in source and not inside:
                continue
            if modname in self.imports_of(other):
                found.append(other)
        return found

    def importers(self, paths: Iterable[str]) -> list[str]:
        """Files that import any of `paths`, directly or through other files of the project."""
        given = {os.path.abspath(p) for p in paths}
        seen = set(given)
        found = []
        queue = deque(sorted(given))
        while queue:
            for importer in self.direct_importers(queue.popleft()):
                absolute = os.path.abspath(importer)
                if absolute not in seen:
                    seen.add(absolute)
                    found.append(importer)
                    queue.append(absolute)
        return found


def importers_of(paths: Iterable[str]) -> list[str]:
    """The project files importing any of `paths` (transitively), grouped by project root."""
    by_root: dict[str, list[str]] = {}
    for path in paths:
        if path.endswith(".py") and os.path.isfile(path):
            by_root.setdefault(project_root(path)[0], []).append(path)
    found = []
    for root, members in by_root.items():
        found.extend(ProjectIndex(root).importers(members))
    return found
