"""Where a project compiles: the `torch.compile` calls of all its files, so that a model
compiled in `train.py` is a compile root in `model.py`, with the settings of that call.

    model = torch.compile(Net(), fullgraph=True)       # Net.forward, fullgraph
    net = Net(); net = torch.compile(net)               # the same through a name
    net = Net(); net.compile(fullgraph=True)            # nn.Module.compile
    step = torch.compile(train_step)                    # a function

Files are read with `ast` only (nothing is imported or run), and only files whose text says
`compile(` are parsed. The project and its files are those of the import index
(importers.project_files): the directory above the file's top-level package, its modules and
packages, so top-level scripts count. The index is built once per process and per project;
the linted file's own entry is always taken from the text being linted, so an edit in the
editor is seen without reading the project again.

Reading every file costs time: 0.3 s for a checkout of transformers (2,900 files, 54 MB). So
the index is built by default only for projects of up to MAX_DEFAULT_INDEX_BYTES of source;
`--staticfx-compiled-only`, which needs it, builds it whatever the size.
"""
from __future__ import annotations

import ast
import os
import sys
from dataclasses import dataclass
from typing import Any

from .projects import project_root
from .roots import COMPILE_DECORATORS, COMPILE_SETTINGS
from .importers import file_imports, imported_from, iter_project_files
from .reads import note_shared

MAX_DEFAULT_INDEX_BYTES = 4_000_000


@dataclass(frozen=True)
class CompileCall:
    """One `torch.compile` of a class's instances or of a function, where the project calls it."""

    qname: str  # the compiled class or function, as the calling file names it
    settings: tuple[tuple[str, bool], ...]
    path: str
    line: int
    # The keyword arguments, all constants, the compiled instance is built with
    # (`torch.compile(Net(debug=True))`): None when it is built otherwise or with none.
    built_with: tuple[tuple[str, Any], ...] | None = None
    # What a call of qname returns is compiled (`torch.compile(Net())`, `net = build(); net.compile()`),
    # not qname itself: a function named so is a factory, and its body is not compiled code.
    returned: bool = False


def compile_calls(source: str, modname: str, path: str, tree: ast.Module | None = None) -> list[CompileCall]:
    """The compile calls of one file's text (parsed, unless its `tree` is given)."""
    if "compile(" not in source:
        return []
    try:
        tree = tree or ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return []
    is_package = os.path.basename(path) == "__init__.py"
    names = _FileNames(tree, modname, is_package)
    found = []
    for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]:
        instances = _instances_made(scope, names)
        for call in _own_calls(scope):
            target = _compiled_target(call, names, instances)
            if target:
                settings = tuple((k.arg, k.value.value) for k in call.keywords
                                 if k.arg in COMPILE_SETTINGS and isinstance(k.value, ast.Constant)
                                 and isinstance(k.value.value, bool))
                construction = _construction(call, instances)
                found.append(CompileCall(target, settings, path, call.lineno, _constant_keywords(construction),
                                         returned=construction is not None))
    return sorted(found, key=lambda call: call.line)  # source order, as roots are listed


def _compiled_target(call: ast.Call, names: _FileNames, instances: dict[str, ast.Call]) -> str | None:
    """The class or function `call` compiles, when it is a compile call."""
    func = call.func
    if names.qualified(func) in COMPILE_DECORATORS and call.args:
        target = call.args[0]
        if isinstance(target, ast.Call):
            return names.qualified(target.func)  # torch.compile(Net(...))
        if isinstance(target, ast.Name):
            return names.qualified(instances[target.id].func) if target.id in instances else names.qualified(target)
        return None
    if isinstance(func, ast.Attribute) and func.attr == "compile" and not call.args:
        receiver = func.value  # nn.Module.compile(): net.compile(fullgraph=True)
        if isinstance(receiver, ast.Name):
            return names.qualified(instances[receiver.id].func) if receiver.id in instances else None
        if isinstance(receiver, ast.Call):
            return names.qualified(receiver.func)
    return None


def _construction(call: ast.Call, instances: dict[str, ast.Call]) -> ast.Call | None:
    """The `Net(...)` call building what the compile call `call` compiles, directly or through a name."""
    target = call.args[0] if call.args else getattr(call.func, "value", None)
    if isinstance(target, ast.Name):
        return instances.get(target.id)
    return target if isinstance(target, ast.Call) else None


def _constant_keywords(construction: ast.Call | None) -> tuple[tuple[str, Any], ...] | None:
    """`Net(debug=True, depth=3)`: (("debug", True), ("depth", 3)); None for any other call."""
    if construction is None or construction.args or not construction.keywords or any(
            k.arg is None or not isinstance(k.value, ast.Constant) for k in construction.keywords):
        return None
    return tuple((k.arg, k.value.value) for k in construction.keywords)


def _own_calls(scope: ast.AST) -> list[ast.Call]:
    """The calls of a module or function body, not of the functions defined in it."""
    calls, stack = [], list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Call):
            calls.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return calls


def _instances_made(scope: ast.AST, names: _FileNames) -> dict[str, ast.Call]:
    """Names a scope binds to a call of a class or factory: `net = Net(...)` gives net -> that
    call. A name rebound to anything else (`net = torch.compile(net)` keeps it) is dropped."""
    made: dict[str, ast.Call] = {}
    dropped: set[str] = set()
    for node in _own_statements(scope):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name, value = node.targets[0].id, node.value
            if isinstance(value, ast.Call) and names.qualified(value.func) not in COMPILE_DECORATORS:
                if names.qualified(value.func):
                    made.setdefault(name, value)
                    if names.qualified(made[name].func) != names.qualified(value.func):
                        dropped.add(name)
                    elif ast.dump(made[name]) != ast.dump(value):  # built two ways: no one configuration
                        made[name] = ast.Call(func=value.func, args=[], keywords=[])
    return {name: call for name, call in made.items() if name not in dropped}


def _own_statements(scope: ast.AST) -> list[ast.stmt]:
    statements, stack = [], list(getattr(scope, "body", []))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        statements.append(node)
        for block in ("body", "orelse", "finalbody", "handlers"):
            stack.extend(getattr(node, block, []))
    return statements


class _FileNames:
    """Dotted names of a file's expressions, from its imports and top-level definitions."""

    def __init__(self, tree: ast.Module, modname: str, is_package: bool):
        self.bound: dict[str, str] = {}
        for node in tree.body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                self.bound[node.name] = f"{modname}.{node.name}"
        package = modname.split(".") if is_package else modname.split(".")[:-1]
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.bound[alias.asname] = alias.name
                    else:
                        top = alias.name.split(".")[0]
                        self.bound[top] = top
            elif isinstance(node, ast.ImportFrom):
                parts = imported_from(node, package)
                if parts is None:
                    continue
                base = ".".join(parts)
                for alias in node.names:
                    if alias.name != "*":
                        self.bound[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name

    def qualified(self, expr: ast.AST) -> str | None:
        if isinstance(expr, ast.Name):
            return self.bound.get(expr.id)
        if isinstance(expr, ast.Attribute):
            base = self.qualified(expr.value)
            return f"{base}.{expr.attr}" if base else None
        return None


class CompileIndex:
    """The compile calls of every file of one project, and which of its files import which
    module (reach.py: the roots of other files that may reach the linted one's functions)."""

    def __init__(self, root: str, packages: frozenset[str] | None, max_bytes: int | None):
        self.calls_by_file: dict[str, list[CompileCall]] = {}
        self.importers_by_module: dict[str, list[str]] = {}
        self.complete = True
        # The paths it read, noted as one set for each file whose answer the index gives (not
        # one by one): every file of the project shares it, and the cache keeps its stamps once.
        self.read = frozenset(self._index(root, packages, max_bytes))

    def _index(self, root: str, packages: frozenset[str] | None, max_bytes: int | None) -> set[str]:
        files, sources, total = [], {}, 0
        read = {root}
        for path in iter_project_files(root, packages):
            read.update((path, os.path.dirname(path)))  # the dirname: a module added beside it
            try:
                total += os.path.getsize(path)
            except OSError:
                continue
            if max_bytes is not None and total > max_bytes:
                self.complete = False  # too big to read on every run: not indexed
                return read
            files.append(path)
        for path in files:
            try:
                with open(path, encoding="utf-8") as handle:
                    sources[path] = handle.read()
            except (OSError, UnicodeDecodeError):
                continue
        for path, source in sources.items():
            modname, absolute = project_root(path)[1], os.path.abspath(path)
            calls = compile_calls(source, modname, path)
            if calls:
                self.calls_by_file[absolute] = calls
            for module in file_imports(source, modname, os.path.basename(path) == "__init__.py"):
                self.importers_by_module.setdefault(module, []).append(absolute)
        return read

    def calls(self, linted_path: str, linted_calls: list[CompileCall]) -> list[CompileCall]:
        """Every compile call of the project, the linted file's taken from its current text."""
        own = os.path.abspath(linted_path)
        note_shared(self.read)
        others = [c for path, calls in self.calls_by_file.items() if path != own for c in calls]
        return linted_calls + others


    def importers(self, modname: str, linted_path: str) -> list[str]:
        """The other files of the project that import module `modname` (the linted file's
        imports are not read from its saved text: it does not reach itself through them)."""
        note_shared(self.read)
        own = os.path.abspath(linted_path)
        return [path for path in self.importers_by_module.get(modname, ()) if path != own]


_INDEXES: dict[tuple[str, frozenset[str] | None, bool], CompileIndex] = {}


def compile_index(root: str, packages: frozenset[str] | None, required: bool) -> CompileIndex | None:
    """The project's index, built once per process, or None when the project was not indexed
    (too big, and not `required` by --staticfx-compiled-only)."""
    key = (root, packages, required)
    index = _INDEXES.get(key)
    if index is None:
        index = _INDEXES[key] = CompileIndex(root, packages, None if required else MAX_DEFAULT_INDEX_BYTES)
        if len(_INDEXES) > 8:
            _INDEXES.pop(next(iter(_INDEXES)))
    if not index.complete:
        note_shared(index.read)  # a file removed could make it small enough
        return None
    return index


_TOLD: set[str] = set()


def say_no_compile_call(root: str) -> None:
    """--staticfx-compiled-only found nothing to limit the roots to: say so once per project."""
    if root not in _TOLD:
        _TOLD.add(root)
        sys.stderr.write(f"flake8-staticfx: --staticfx-compiled-only: no torch.compile call found under "
                         f"{root}; every forward is linted\n")
