"""Which files of a project import a given file: `check --with-importers`.

pre-commit hands a hook only the files a commit changes. A break added to a helper shows up
in the models that call the helper (the analysis follows calls into other files of the
project and reports at the call), so linting the helper alone finds nothing. This index finds
the project's files that import the changed ones, by parsing import statements with `ast`
(nothing is imported or run), so that they are linted too.

The project is the one the analysis follows (discover.project_root / project_for): a file's
root is the first directory above it without an `__init__.py`, and names resolve to modules
under that root (only the file's own top-level package when the root holds installed
distributions). So the files that can reach a module of root R are the modules directly in R
and in its packages (directories with `__init__.py`, recursively); nothing else is walked,
which keeps the walk out of virtual environments and data directories.

Importers are followed transitively: the analysis of a model that calls into a module that
calls the helper reports the helper's break at the model's call. That holds through a module
larger than discover.MAX_PROJECT_MODULE_SIZE too, whose top-level functions the analysis follows
(its classes it does not: an importer that uses only those is linted for nothing).

Cost: each file is read once and only its import statements are parsed (the lines that start
an `import` or `from` statement, with their continuation lines; a file with an import after
`:` or `;` on one line is parsed whole). On torch's own 2,335 files (47 MB) that is the
difference between 34 s (every file parsed whole) and a few seconds.
"""
from __future__ import annotations

import ast
import os
import re
import textwrap
from collections import deque
from typing import Iterable, Iterator

from .projects import is_install_dir, project_root

_STATEMENT_START = re.compile(r"\s*(import|from)\s")
# An import that does not start its line: `try: import x`, `a = 1; import x`.
_INLINE_IMPORT = re.compile(r"[:;]\s*(import|from)\s+[\w.]+")
_MAX_STATEMENT_LINES = 1000


def project_files(root: str, packages: frozenset[str] | None = None) -> list[str]:
    """The .py files whose project root is `root`: its own modules and its packages'."""
    return list(iter_project_files(root, packages))


def iter_project_files(root: str, packages: frozenset[str] | None = None) -> Iterator[str]:
    """project_files one at a time, so that a caller with a budget stops the walk early."""
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if packages is not None:
            if (entry.name[:-3] if entry.name.endswith(".py") else entry.name) not in packages:
                continue
        if entry.is_file() and entry.name.endswith(".py"):
            yield entry.path
        elif entry.is_dir() and not entry.name.startswith(".") and \
                os.path.isfile(os.path.join(entry.path, "__init__.py")):
            yield from _package_files(entry.path)


def _package_files(package: str) -> Iterator[str]:
    for directory, subdirs, files in os.walk(package):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith(".")
                            and os.path.isfile(os.path.join(directory, d, "__init__.py")))
        yield from (os.path.join(directory, f) for f in sorted(files) if f.endswith(".py"))


def imported_modules(tree: ast.AST, modname: str, is_package: bool) -> set[str]:
    """Dotted names of the modules the code imports (a `from m import n` may import m.n)."""
    package = modname.split(".") if is_package else modname.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                found.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
        elif isinstance(node, ast.ImportFrom):
            base = imported_from(node, package)
            if not base:
                continue
            found.update(".".join(base[:i]) for i in range(1, len(base) + 1))
            found.update(".".join([*base, alias.name]) for alias in node.names if alias.name != "*")
    return found


def imported_from(node: ast.ImportFrom, package: list[str]) -> list[str] | None:
    """The dotted parts of the module a `from ... import` names, relative ones resolved in
    `package` (the importing module's package); None when it climbs above the top."""
    if not node.level:
        return node.module.split(".") if node.module else []
    if node.level - 1 > len(package):
        return None
    return [*package[:len(package) - (node.level - 1)], *(node.module.split(".") if node.module else [])]


def import_statements(source: str) -> list[str] | None:
    """The text of each line-starting import statement (dedented, with its continuation
    lines), or None when an import may hide elsewhere and the whole file must be parsed."""
    lines = source.splitlines()
    statements = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if _INLINE_IMPORT.search(line) and not line.lstrip().startswith("#"):
            return None
        if not _STATEMENT_START.match(line):
            i += 1
            continue
        j = i
        depth = line.count("(") - line.count(")")
        while (depth > 0 or lines[j].rstrip().endswith("\\")) and j + 1 < len(lines):
            j += 1
            depth += lines[j].count("(") - lines[j].count(")")
            if j - i > _MAX_STATEMENT_LINES:
                return None
        statements.append(textwrap.dedent("\n".join(lines[i:j + 1])))
        i = j + 1
    return statements


def file_imports(source: str, modname: str, is_package: bool) -> set[str]:
    """The modules a file's source imports, from its import statements parsed with ast."""
    statements = import_statements(source)
    if statements is None:
        return file_imports_parsed(source, modname, is_package)
    found: set[str] = set()
    for statement in statements:
        try:
            tree = ast.parse(statement)
        except (SyntaxError, ValueError):
            # prose in a docstring that starts with "from ...", or a statement cut wrongly
            # (a parenthesis in a comment): only the whole file is sure
            return file_imports_parsed(source, modname, is_package)
        found |= imported_modules(tree, modname, is_package)
    return found


def file_imports_parsed(source: str, modname: str, is_package: bool) -> set[str]:
    try:
        return imported_modules(ast.parse(source), modname, is_package)
    except (SyntaxError, ValueError, RecursionError):
        return set()


class ProjectIndex:
    """The import graph of one project root, built in one pass over its files."""

    def __init__(self, root: str, packages: frozenset[str] | None = None):
        self.root = root
        self.files = project_files(root, packages)
        self.importers_by_module: dict[str, list[str]] = {}
        for path in self.files:
            try:
                with open(path, encoding="utf-8") as handle:
                    source = handle.read()
            except (OSError, UnicodeDecodeError):
                continue
            modname = project_root(path)[1]
            for module in file_imports(source, modname, os.path.basename(path) == "__init__.py"):
                self.importers_by_module.setdefault(module, []).append(path)

    def direct_importers(self, path: str) -> list[str]:
        """Files of the project that import the module of `path`."""
        modname = project_root(path)[1]
        own = os.path.abspath(path)
        return [p for p in self.importers_by_module.get(modname, ()) if os.path.abspath(p) != own]

    def importers(self, paths: Iterable[str]) -> list[str]:
        """Files that import any of `paths`, directly or through modules the analysis follows."""
        given = {os.path.abspath(p) for p in paths}
        seen = set(given)
        found = []
        queue = deque(sorted(given))
        while queue:
            path = queue.popleft()
            for importer in self.direct_importers(path):
                absolute = os.path.abspath(importer)
                if absolute in seen:
                    continue
                seen.add(absolute)
                found.append(importer)
                queue.append(absolute)  # the analysis follows calls into it, so its importers count
        return found


def importers_of(paths: Iterable[str]) -> list[str]:
    """The project files importing any of `paths` (transitively), grouped by project root."""
    by_project: dict[tuple[str, str | None], list[str]] = {}
    for path in paths:
        if path.endswith(".py") and os.path.isfile(path):
            root, modname = project_root(path)
            own = modname.split(".", 1)[0] if is_install_dir(root) else None
            by_project.setdefault((root, own), []).append(path)
    found = []
    for (root, own), members in by_project.items():
        found.extend(ProjectIndex(root, frozenset({own}) if own else None).importers(members))
    return found
