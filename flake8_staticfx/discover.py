"""Stage 1: parse with astroid, resolve names by import statements, find modules and roots.

astroid is used for its node classes and scopes only: the tree is rebuilt from the `ast`
that flake8 already parsed, and no name is ever inferred, so astroid never imports torch,
third-party packages or the user's project (see `parse_source`).
"""
from __future__ import annotations

import ast
import copy
import functools
import os
import re
import sys
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from astroid import MANAGER, nodes
from astroid.rebuilder import TreeRebuilder

from .config import DEFAULT_MODULE_BASES
from .torch_versions import MODELED, facts

if TYPE_CHECKING:
    from .compiled import CompileCall

TORCH_MODULE = "torch.nn.Module"
CONTAINERS = frozenset({"torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict"})
NOT_LEAVES = CONTAINERS | {TORCH_MODULE, "torch.nn.Parameter", "torch.nn.ParameterList",
                           "torch.nn.ParameterDict", "torch.nn.Buffer"}
ENUM_BASES = frozenset({"enum.Enum", "enum.IntEnum", "enum.StrEnum", "enum.Flag", "enum.IntFlag"})
DICT_BASES = frozenset({"dict", "builtins.dict", "collections.OrderedDict"})
# Dict-backed dataclass bases whose `__post_init__` puts each field that is not None in the
# dict, in declaration order, so that `out[0]` is the first of them (values/objects.py
# OutputRecord): transformers' ModelOutput, diffusers' BaseOutput, matched by name.
OUTPUT_RECORD_BASES = frozenset({"ModelOutput", "BaseOutput"})
COMPILE_DECORATORS = frozenset({"torch.compile", "torch.compiler.compile"})
DATACLASS = "dataclass"  # decorator_names keeps the bare name of dataclasses.dataclass (TRANSPARENT_LIBRARY_DECORATORS)
DATACLASS_TRANSFORMS = frozenset({"typing.dataclass_transform", "typing_extensions.dataclass_transform"})
# Class decorators a dataclass may carry that keep its generated `__init__`: the markers, docs,
# and huggingface_hub's `strict`, which only validates the fields' types.
DATACLASS_DECORATORS = DATACLASS_TRANSFORMS | {DATACLASS, "auto_docstring", "huggingface_hub.dataclasses.strict"}
PROJECT_CACHE_SIZE = 64
# Imported project modules larger than this (characters) are not analysed whole: their classes
# stay opaque, and a top-level function of one is followed in a slice of the module
# (OversizedModule.function_slice). A model family's file with its registrations is below
# (timm's resnet.py is 107 KB), and so is a research package's one-file core
# (vector-quantize-pytorch's is 51 KB); transformers' cache_utils.py (120 KB) and
# modeling_outputs.py (118 KB), which its model files import, are above: reading them cost a
# typical model file 115 ms more (measured, 0.27 -> 0.39 s), and modeling_utils.py is 280 KB.
MAX_PROJECT_MODULE_SIZE = 110_000
MAX_RESOLVE_DEPTH = 12
# The most lines a slice of an oversized module may hold (OversizedModule.function_slice).
MAX_SLICE_LINES = 1_000
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


def normalize_qname(qname: str) -> str:
    """Spell torch names the way users see them: torch.nn.modules.linear.Linear -> torch.nn.Linear."""
    parts = qname.split(".")
    if parts[:3] == ["torch", "nn", "modules"] and len(parts) >= 4:
        return "torch.nn." + parts[-1]
    return qname


def is_torch_layer(qname: str) -> bool:
    """A torch.nn (or torch.ao.nn) class other than the containers: fx treats it as a leaf."""
    parts = qname.split(".")
    if qname in NOT_LEAVES or len(parts) < 3:
        return False
    in_nn = parts[:2] == ["torch", "nn"] or parts[:3] == ["torch", "ao", "nn"]
    return in_nn and parts[-1][:1].isupper() and parts[2] not in ("functional", "init", "utils")


# ---------------------------------------------------------------------------
# Parsing


# `global NAME`; a statement when only blanks, or a `;` or `:` (one-line `def f(): global x`),
# come before it on its line. The word alone is too wide: "global" in a comment or docstring (4 of
# transformers' 5 most imported modules) cost each of them its lazy function bodies.
_GLOBAL_WORD = re.compile(r"global[ \t]+[A-Za-z_]")


def _has_global_statement(source: str) -> bool:
    for match in _GLOBAL_WORD.finditer(source):  # a literal prefix: as fast as `in`
        before = source[source.rfind("\n", 0, match.start()) + 1:match.start()].rstrip()
        if not before or before.endswith((";", ":")):
            return True
    return False


def parse_source(tree: ast.Module, modname: str, path: str, source: str | None = None) -> nodes.Module:
    """Rebuild flake8's `ast` tree as astroid nodes, without astroid's post-build step.

    The post-build step infers `self` for every `self.x = ...`, which walks the MRO into
    torch's (or any installed library's) sources and costs seconds; we compute instance
    attributes ourselves. It also binds `from m import a` names, which we do here.
    The rebuilder gets no source text: with it, it tokenizes every def and class header
    again for a `position` we never read.
    Given the module's `source`, function bodies are rebuilt only when first read (see
    `_LazyBody`): most functions of an imported module are never entered.
    """
    builder = _BodyDeferringRebuilder(MANAGER) if source is not None and not _has_global_statement(source) \
        else TreeRebuilder(MANAGER)
    module = builder.visit_module(tree, modname, path, os.path.basename(path) == "__init__.py")
    _bind_imported_names(builder, 0)
    return module


def _bind_imported_names(builder: TreeRebuilder, start: int) -> None:
    """Bind the names of the `from m import a` nodes built since `start` (post-build's job)."""
    for node, _ in builder._import_from_nodes[start:]:  # noqa: SLF001 - astroid keeps them for post-build
        for name, alias in node.names:
            if name != "*":
                node.parent.set_local(alias or name, node)
    del builder._import_from_nodes[start:]  # noqa: SLF001


class _LazyBody:
    """A function whose body (and so its locals beyond the parameters) is rebuilt from its
    `ast` statements the first time `body` or `locals` is read.

    Exact only when no statement of the module is `global`: a `global x` body assigns to the
    module's locals, which must be complete from the start (parse_source checks the text).
    """

    _pending: tuple[TreeRebuilder, list[ast.stmt]] | None = None

    @property
    def body(self) -> list[nodes.NodeNG]:
        if self._pending is not None:
            self._build_body()
        return self._body

    @body.setter
    def body(self, value: list[nodes.NodeNG]) -> None:
        self._body = value

    @property
    def locals(self) -> dict[str, list[nodes.NodeNG]]:
        if self._pending is not None:
            self._build_body()
        return self._locals

    @locals.setter
    def locals(self, value: dict[str, list[nodes.NodeNG]]) -> None:
        self._locals = value

    def defines_nothing(self) -> bool:
        """Is it known, without building the body, that no class or function is defined in it?"""
        if self._pending is None:
            return False
        stack = list(self._pending[1])
        while stack:
            statement = stack.pop()
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                return False
            for name in ("body", "orelse", "finalbody", "handlers", "cases"):
                children = getattr(statement, name, None)
                if isinstance(children, list):
                    stack.extend(children)
        return True

    def _build_body(self) -> None:
        builder, statements = self._pending
        self._pending = None  # set_local below reads self.locals
        start = len(builder._import_from_nodes)  # noqa: SLF001
        builder._global_names.append({})  # noqa: SLF001 - the function's own scope, as astroid does
        self._body = [builder.visit(statement, self) for statement in statements]
        builder._global_names.pop()  # noqa: SLF001
        _bind_imported_names(builder, start)
        builder._delayed_assattr.clear()  # noqa: SLF001 - post-build's list, never run


def attributes_set_on_self(function: nodes.FunctionDef) -> set[str]:
    """The `x` of every `self.x = ...` (or `+=`) in `function`, nested scopes included. A body
    not built yet is read from its `ast` statements and stays unbuilt: asking this of every
    method of a class built them all, most never run (0.6 s over 200 library files)."""
    if not isinstance(function, _LazyBody) or function._pending is None:  # noqa: SLF001 - built
        return {node.attrname for node in nodes_of_class(function, nodes.AssignAttr)
                if isinstance(node.expr, nodes.Name) and node.expr.name == "self"}
    _, statements = function._pending  # noqa: SLF001
    return {node.attr for statement in statements for node in ast.walk(statement)
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name) and node.value.id == "self"}


class _LazyFunctionDef(_LazyBody, nodes.FunctionDef):
    pass


class _LazyAsyncFunctionDef(_LazyBody, nodes.AsyncFunctionDef):
    pass


# Named as the classes they stand for: astroid's `accept` and our handlers dispatch on the name.
_LazyFunctionDef.__name__ = _LazyFunctionDef.__qualname__ = "FunctionDef"
_LazyAsyncFunctionDef.__name__ = _LazyAsyncFunctionDef.__qualname__ = "AsyncFunctionDef"
_LAZY_CLASSES = {nodes.FunctionDef: _LazyFunctionDef, nodes.AsyncFunctionDef: _LazyAsyncFunctionDef}


class _BodyDeferringRebuilder(TreeRebuilder):
    """astroid's rebuilder, building each function with its docstring, decorators and
    parameters now and its statements on first use."""

    def _visit_functiondef(self, cls, node, parent):
        first = node.body[:1]
        has_doc = bool(first) and isinstance(first[0], ast.Expr) and isinstance(first[0].value, ast.Constant) \
            and isinstance(first[0].value.value, str)
        header = copy.copy(node)
        header.body = first if has_doc else []
        function = super()._visit_functiondef(_LAZY_CLASSES[cls], header, parent)
        statements = node.body[1:] if has_doc else node.body
        if statements:
            function._pending = (self, statements)
        return function


# ---------------------------------------------------------------------------
# The project a file belongs to


def project_root(path: str) -> tuple[str, str]:
    """(root directory, dotted module name) the way pylint finds them: walk up __init__.py."""
    path = os.path.abspath(path)
    directory, base = os.path.split(path)
    stem = os.path.splitext(base)[0]
    parts = [] if stem == "__init__" else [stem]
    while os.path.isfile(os.path.join(directory, "__init__.py")):
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
        top = modname.split(".", 1)[0]
        if top in NEVER_PROJECT or (self.packages is not None and top not in self.packages):
            return None
        base = os.path.join(self.root, *modname.split("."))
        for candidate in (base + ".py", os.path.join(base, "__init__.py")):
            if os.path.isfile(candidate):
                return candidate
        return None

    def load(self, modname: str) -> SourceModule | None:
        """The module parsed, reusing the last parse while the file's text is unchanged."""
        path = self.module_path(modname)
        if path is None:
            return None
        try:
            with open(path, encoding="utf-8") as handle:
                source = handle.read()
        except (OSError, UnicodeDecodeError):
            return None
        if len(source) > MAX_PROJECT_MODULE_SIZE:
            return None  # framework-sized modules cost more to parse than they tell
        cached = self._cache.get(path)
        if cached and cached[0] == source:
            self._cache.move_to_end(path)
            return cached[1]
        if cached:
            _count_dropped(1)  # the text changed: the old parse goes
        loaded = None
        try:
            loaded = SourceModule(parse_source(ast.parse(source), modname, path, source), path, modname, source)
        except (SyntaxError, ValueError, RecursionError):
            pass
        self._cache[path] = (source, loaded)
        if len(self._cache) > PROJECT_CACHE_SIZE:
            self._cache.popitem(last=False)
            _count_dropped(1)
        return loaded


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
    own = modname.split(".", 1)[0] if _is_install_dir(root) else None
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
        self._packages: OrderedDict[str, Project | None] = OrderedDict()

    def package(self, top: str) -> Project | None:
        """The project of top-level package (or module) `top`: the first directory of the
        search path holding its Python source; None if followed nowhere."""
        if top in self._packages:
            self._packages.move_to_end(top)
            return self._packages[top]
        found = None
        if top not in NEVER_FOLLOWED and top.isidentifier():
            for directory in self.search_path:
                if os.path.isfile(os.path.join(directory, top, "__init__.py")) \
                        or os.path.isfile(os.path.join(directory, top + ".py")):
                    found = Project(directory, frozenset({top}))
                    break
        self._packages[top] = found
        if len(self._packages) > LIBRARY_PACKAGES_KEPT:
            _dropped(self._packages.popitem(last=False)[1])
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
    candidates = [*configured, *([root] if _is_install_dir(root) else [])]
    venvs = [os.environ.get("VIRTUAL_ENV"), *(os.path.join(directory, name) for directory in (root, os.getcwd())
                                              for name in (".venv", "venv"))]
    for venv in venvs:
        if venv:
            candidates.extend(venv_site_packages(venv))
    candidates.extend(entry for entry in sys.path if entry)
    search_path = tuple(dict.fromkeys(os.path.abspath(c) for c in candidates if os.path.isdir(c)))
    libraries = _LIBRARIES.get(search_path)
    if libraries is None:
        libraries = _LIBRARIES[search_path] = Libraries(search_path)
        if len(_LIBRARIES) > 8:
            for project in _LIBRARIES.popitem(last=False)[1]._packages.values():  # noqa: SLF001
                _dropped(project)
    return libraries


def venv_site_packages(venv: str) -> list[str]:
    """The site-packages directories of a virtual environment, by path: lib/pythonX.Y/site-packages
    (this interpreter's version first), Lib/site-packages on Windows."""
    own = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    try:
        versions = sorted((e.name for e in os.scandir(os.path.join(venv, "lib"))
                           if e.name.startswith("python") and e.is_dir()), key=lambda name: name != own)
    except OSError:
        versions = []
    found = [os.path.join(venv, "lib", version, "site-packages") for version in versions]
    found.append(os.path.join(venv, "Lib", "site-packages"))
    return [directory for directory in found if os.path.isdir(directory)]


@functools.lru_cache(maxsize=32)
def _is_install_dir(directory: str) -> bool:
    if os.path.basename(directory) in ("site-packages", "dist-packages"):
        return True
    try:
        return any(name.endswith(".dist-info") for name in os.listdir(directory))
    except OSError:
        return False


# ---------------------------------------------------------------------------
# Name resolution by import statements


@dataclass(frozen=True)
class Binding:
    """What a module-level name is bound to.

    kind: "external" (qname outside the project), "class", "function", "assign" (node is the
    assigned value expression), or "module" (a project module).
    """

    kind: str
    qname: str = ""
    node: nodes.NodeNG | None = None
    module: SourceModule | None = None


@dataclass
class Resolver:
    """Resolves module-level names of one file and, through imports, of its project."""

    main: SourceModule
    project: Project
    module_bases: tuple[str, ...] = DEFAULT_MODULE_BASES
    # Installed packages, searched after the project (a project module shadows a library).
    libraries: Libraries = NO_LIBRARIES
    # Per-file caches: the answers cannot change while one file is analysed.
    _class_is_module: dict[nodes.ClassDef, bool] = field(default_factory=dict)
    _qualified: dict[str, Binding] = field(default_factory=dict)
    _mro: dict[nodes.ClassDef, list[nodes.ClassDef]] = field(default_factory=dict)
    _sources: dict[nodes.Module, SourceModule] = field(default_factory=dict)
    _loaded: dict[str, SourceModule | None] = field(default_factory=dict)
    _is_module: dict[str, bool] = field(default_factory=dict)
    _decorators: dict[nodes.NodeNG, list[str]] = field(default_factory=dict)
    _bases: dict[nodes.NodeNG, Binding | None] = field(default_factory=dict)

    def is_project_module(self, modname: str) -> bool:
        """Is `modname` a module whose source we read: the project's, or a library's?"""
        found = self._is_module.get(modname)
        if found is None:
            library = self._library(modname)
            found = self._is_module[modname] = self.project.module_path(modname) is not None \
                or library is not None and library.module_path(modname) is not None
        return found

    def _library(self, modname: str) -> Project | None:
        """The installed package a module name is in, unless the project has a module of that
        top-level name, which shadows it (the project comes first on the user's path)."""
        top = modname.split(".", 1)[0]
        return None if self.project.module_path(top) is not None else self.libraries.package(top)

    def missing_package(self, qname: str) -> str | None:
        """The top-level package of `qname` when we would follow it but find its source neither
        in the project nor on the library search path."""
        top = qname.split(".", 1)[0]
        return None if self.is_project_module(top) else self.libraries.missing(qname)

    def load(self, modname: str) -> SourceModule | None:
        """A project (or library) module, checked on disk once per analysed file."""
        if modname not in self._loaded:
            self._loaded[modname] = self._owner(modname).load(modname)
        return self._loaded[modname]

    def _owner(self, modname: str) -> Project:
        """The project, or the installed package, whose module `modname` is read."""
        library = None if self.project.module_path(modname) is not None else self._library(modname)
        return library or self.project

    def function_slice(self, modname: str, name: str) -> SourceModule | None:
        """The slice of module `modname` holding its top-level function `name`, when the module
        is over MAX_PROJECT_MODULE_SIZE (see OversizedModule.function_slice); `source_of` then
        answers it for the slice's nodes. None for a module analysed whole, for a name that is
        no such function, and for a name our tables know (it stays theirs)."""
        if f"{modname}.{name}" in _table_names():
            return None
        path = self._owner(modname).module_path(modname)
        try:
            stat = os.stat(path) if path is not None else None
        except OSError:
            return None
        if stat is None or stat.st_size <= MAX_PROJECT_MODULE_SIZE:
            return None
        sliced = _oversized_module(path, (stat.st_mtime_ns, stat.st_size)).function_slice(modname, name)
        if sliced is not None:
            self._sources[sliced.node] = sliced
        return sliced

    def source_of(self, node: nodes.NodeNG) -> SourceModule:
        root = node.root()
        if root is self.main.node:
            return self.main
        found = self._sources.get(root)
        if found is None:
            found = self._sources[root] = self.load(root.name) or self.main
        return found

    def global_binding(self, module: SourceModule, name: str, depth: int = 0) -> Binding | None:
        bound = module.node.locals.get(name)
        if not bound or depth > MAX_RESOLVE_DEPTH:
            return None
        if module.sliced and f"{module.modname}.{name}" in _table_names():
            return Binding("external", f"{module.modname}.{name}")
        # Several bindings: `try: import a except ImportError: a = None`; take the first
        # import, otherwise the last definition.
        for node in bound:
            if isinstance(node, (nodes.Import, nodes.ImportFrom)):
                return self.import_binding(module, node, name, depth)
        return self._definition_binding(module, bound[-1])

    def _definition_binding(self, module: SourceModule, node: nodes.NodeNG) -> Binding | None:
        if isinstance(node, nodes.ClassDef):
            return Binding("class", node.qname(), node, module)
        if isinstance(node, nodes.FunctionDef):
            return Binding("function", node.qname(), node, module)
        if isinstance(node, nodes.AssignName):
            parent = node.parent
            if isinstance(parent, (nodes.Assign, nodes.AnnAssign)) and parent.value is not None:
                if isinstance(parent, nodes.AnnAssign) or parent.targets == [node]:
                    return Binding("assign", node.name, parent.value, module)
        return None

    def import_binding(self, module: SourceModule, node: nodes.Import | nodes.ImportFrom, name: str,
                       depth: int = 0) -> Binding | None:
        """What the import statement `node` of `module` binds `name` to."""
        if isinstance(node, nodes.Import):
            for imported, alias in node.names:
                if alias == name:
                    return self.qualified(imported, depth)
                if alias is None and imported.split(".")[0] == name:
                    return self.qualified(name, depth)
            return None
        for imported, alias in node.names:
            if (alias or imported) == name:
                base = node.modname
                if node.level:
                    base = _relative_module(module, node.modname, node.level)
                    if base is None:
                        return None
                return self.qualified(f"{base}.{imported}" if base else imported, depth)
        return None

    def qualified(self, qname: str, depth: int = 0) -> Binding:
        """Resolve a dotted name: into the project where it is the project's, else external."""
        found = self._qualified.get(qname)
        if found is None:
            found = self._qualified[qname] = self._resolve_qualified(qname, depth)
        return found

    def _resolve_qualified(self, qname: str, depth: int) -> Binding:
        parts = qname.split(".")
        if qname in _table_names() and self.project.module_path(parts[0]) is None:
            return Binding("external", qname)  # a library function our tables know by name
        for cut in range(len(parts), 0, -1):
            modname = ".".join(parts[:cut])
            if not self.is_project_module(modname):
                continue
            if cut == len(parts):
                return self._package_attribute(parts, depth) or Binding("module", modname)
            source = self.load(modname) or self.function_slice(modname, parts[cut])
            if source is None:
                break
            binding = self.global_binding(source, parts[cut], depth + 1)
            if binding is None:
                break
            for attr in parts[cut + 1:]:
                binding = self.attribute(binding, attr, depth + 1)
                if binding is None:
                    return Binding("external", qname)
            return binding
        return Binding("external", _torch_class_made_at_import(normalize_qname(qname)))

    def _package_attribute(self, parts: list[str], depth: int) -> Binding | None:
        """`pkg.name` that pkg/__init__.py binds to something else than its submodule `name`
        (timm.layers: `from .create_attn import create_attn`): what an imported package's
        attribute is, as Python looks it up; None when it is the submodule (loaded lazily)."""
        package = ".".join(parts[:-1])
        if not package or not self.is_project_module(package):
            return None
        source = self.load(package)
        if source is None or os.path.basename(source.path) != "__init__.py" or parts[-1] not in source.node.locals:
            return None
        qname = ".".join(parts)
        self._qualified[qname] = Binding("module", qname)  # `from . import name` binds the submodule
        binding = self.global_binding(source, parts[-1], depth + 1)
        return binding if binding is not None and binding.kind != "module" else None

    def attribute(self, binding: Binding, attr: str, depth: int = 0) -> Binding | None:
        if binding.kind == "external":
            return Binding("external", normalize_qname(f"{binding.qname}.{attr}"))
        if binding.kind == "module":
            return self.qualified(f"{binding.qname}.{attr}", depth + 1)
        return None

    def expr_binding(self, expr: nodes.NodeNG, module: SourceModule | None = None) -> Binding | None:
        """Resolve a `Name` or `Attribute` chain at module level (decorators, bases)."""
        module = module or self.source_of(expr)
        attrs = []
        while isinstance(expr, nodes.Attribute):
            attrs.append(expr.attrname)
            expr = expr.expr
        if not isinstance(expr, nodes.Name):
            return None
        binding = self.global_binding(module, expr.name)
        if binding is None:
            return Binding("external", expr.name) if expr.name in _BUILTIN_NAMES else None
        for attr in reversed(attrs):
            binding = self.attribute(binding, attr)
            if binding is None:
                return None
        return binding

    def expr_qname(self, expr: nodes.NodeNG) -> str | None:
        binding = self.expr_binding(expr)
        return binding.qname if binding is not None else None

    # -- classes ------------------------------------------------------------

    def base_classes(self, cls: nodes.ClassDef) -> Iterator[Binding]:
        """The resolved bases of `cls`, one at a time: a caller that stops at the first
        module base never parses the library of a mixin further right. A configured library
        base (PreTrainedModel) stays a name, so that its library is never parsed for it."""
        for base in cls.bases:
            if isinstance(base, nodes.Subscript):  # Generic[T], SomeBase[Config]
                base = base.value
            if base not in self._bases:
                if _last_name(base) in self.module_bases:
                    self._bases[base] = Binding("external", _last_name(base))
                else:
                    self._bases[base] = self.expr_binding(base, self.source_of(cls))
            if self._bases[base] is not None:
                yield self._bases[base]

    def mro(self, cls: nodes.ClassDef) -> list[nodes.ClassDef]:
        """The project classes of `cls`'s MRO (left-to-right depth-first, cycles cut)."""
        cached = self._mro.get(cls)
        if cached is None:
            cached = self._mro[cls] = list(self.iter_mro(cls))
        return cached

    def iter_mro(self, cls: nodes.ClassDef) -> Iterator[nodes.ClassDef]:
        """`mro(cls)` lazily, for a search that usually ends at `cls` itself."""
        seen: list[nodes.ClassDef] = []
        stack = [cls]
        while stack and len(seen) < 64:
            current = stack.pop(0)
            if current in seen:
                continue
            seen.append(current)
            yield current
            stack = [b.node for b in self.base_classes(current) if b.kind == "class"] + stack

    def is_enum_class(self, cls: nodes.ClassDef) -> bool:
        return any(b.kind == "external" and b.qname in ENUM_BASES or b.kind == "class" and self.is_enum_class(b.node)
                   for owner in self.mro(cls)[:1] for b in self.base_classes(owner))

    def is_dict_subclass(self, cls: nodes.ClassDef) -> bool:
        """A project class over `dict` or `OrderedDict` that keeps their constructor and adds
        methods (transformers' ClassInstantier, whose `__getitem__` builds the class it maps
        to): an instance holds the dict it is built from."""
        mro = self.mro(cls)
        if any(owner.decorators or "__init__" in owner.locals or "__new__" in owner.locals for owner in mro):
            return False
        bindings = [(owner, list(self.base_classes(owner))) for owner in mro]
        if any(len(found) != len(owner.bases) for owner, found in bindings):
            return False
        library = [b.qname for _, found in bindings for b in found if b.kind != "class"]
        return len(library) == 1 and library[0] in DICT_BASES

    def class_is_opaque(self, cls: nodes.ClassDef) -> bool:
        """A class decorator we do not know may swap forward (transformers' experts dispatch,
        allow_in_graph): its forward is neither linted nor inlined."""
        return self.opaque_decorator(cls) is not None

    def opaque_decorator(self, cls: nodes.ClassDef) -> tuple[nodes.ClassDef, nodes.NodeNG] | None:
        """(class, decorator) of the first decorator we do not know on `cls` or on the classes
        it inherits forward through. Only the classes up to the one defining forward matter, so
        mixins further up are never parsed for this."""
        seen = set()
        stack = [cls]
        while stack and len(seen) < 64:
            owner = stack.pop()
            if owner in seen:
                continue
            seen.add(owner)
            decorator = unknown_decorator(self, owner)
            if decorator is not None:
                return owner, decorator
            if "forward" not in owner.locals:  # the forward that runs is further up
                stack.extend(b.node for b in self.base_classes(owner) if b.kind == "class")
        return None

    def is_plain_class(self, cls: nodes.ClassDef) -> bool:
        """A project class whose instances dynamo traces as user objects: no decorator, and
        only project classes or `object` as bases (no library base such as dict, Exception,
        Enum or a dataclass, whose behaviour we do not see)."""
        if any(owner.decorators or not self._project_bases_only(owner) for owner in self.mro(cls)):
            return False
        return not self.is_module_class(cls)

    def _project_bases_only(self, cls: nodes.ClassDef) -> bool:
        """Are the class's own bases project classes or `object`, each resolved?"""
        bindings = list(self.base_classes(cls))
        return len(bindings) == len(cls.bases) and all(
            b.kind == "class" or b.kind == "external" and b.qname == "object" for b in bindings)

    def is_dataclass(self, cls: nodes.ClassDef) -> bool:
        """A project class made by `@dataclasses.dataclass` (called or not), or derived from a
        base marked `@dataclass_transform` (PEP 681: transformers' PreTrainedConfig makes each
        subclass a dataclass), over plain classes and other such dataclasses: its generated
        `__init__` is known from its fields."""
        mro = self.mro(cls)
        made = DATACLASS in decorator_names(self, cls) or any(
            name in DATACLASS_TRANSFORMS for owner in mro[1:] for name in decorator_names(self, owner))
        if not made or any(not set(decorator_names(self, owner)) <= DATACLASS_DECORATORS
                           or not self._project_bases_only(owner) for owner in mro):
            return False
        return not self.is_module_class(cls)

    def is_output_record(self, cls: nodes.ClassDef) -> bool:
        """A `@dataclass` over an OUTPUT_RECORD_BASES class deriving from dict or OrderedDict."""
        return DATACLASS in decorator_names(self, cls) and any(
            owner.name in OUTPUT_RECORD_BASES and any(
                b.kind == "external" and b.qname in DICT_BASES for b in self.base_classes(owner))
            for owner in self.mro(cls)[1:])

    def oversized_output_record(self, qname: str) -> dict[str, bool] | None:
        """The fields (name: defaults to None) of the output record class `qname` names in a
        project module too large to analyse (MAX_PROJECT_MODULE_SIZE: transformers'
        modeling_outputs.py, which every model file imports), read from its class statements
        alone; None when `qname` is no such class."""
        modname, _, name = qname.rpartition(".")
        path = self.project.module_path(modname) if modname else None
        if path is None:
            return None
        try:
            stat = os.stat(path)
        except OSError:
            return None
        return _oversized_record(path, (stat.st_mtime_ns, stat.st_size), name)

    def is_module_class(self, cls: nodes.ClassDef) -> bool:
        cached = self._class_is_module.get(cls)
        if cached is not None:
            return cached
        self._class_is_module[cls] = False  # cuts cycles in class hierarchies
        # A configured base is recognised by name, without parsing the library defining it.
        result = any(_last_name(base) in self.module_bases for base in cls.bases)
        # A loop, not any() over a generator: on Python 3.12 each any() level of this recursion
        # takes C stack, and a hierarchy 500 classes deep ran out of it (RecursionError).
        for binding in () if result else self.base_classes(cls):
            if self._is_module_base(binding):
                result = True
                break
        self._class_is_module[cls] = result
        return result

    def _is_module_base(self, binding: Binding) -> bool:
        if binding.kind == "class":
            return self.is_module_class(binding.node)
        if binding.kind != "external":
            return False
        qname = binding.qname
        if qname == TORCH_MODULE or is_torch_layer(qname) or qname in CONTAINERS:
            return True
        short = qname.rsplit(".", 1)[-1]
        return any(base in (qname, short) for base in self.module_bases)


_COMPOUND_HEAD = re.compile(r"(?:if|try|with|for|while|match|async\s+(?:with|for))\b")
_IMPORT_HEAD = re.compile(r"(?:from|import)\b")
_DEFINITION_HEAD = re.compile(r"(?:async\s+)?(?:def|class)\s+(\w+)")
_TRIPLE_QUOTES = re.compile(r"\"\"\"|'''")
_NOT_A_START = ("", " ", "\t", "#", ")", "]", "}")
# A line at column 0 that may start a statement: not a comment, a closing bracket nor a clause
# of the compound statement before it.
_LINE_AT_COLUMN_0 = re.compile(r"^(?!(?:else|elif|except|finally)\b)[^\s#)\]}]", re.M)


class TopStatement:
    """One top-level statement of an oversized module, found from its text: it starts at a
    line at column 0 (its decorators' first) and runs to the line before the next one. Parsed
    alone, and only when a slice needs it."""

    def __init__(self, lines: list[str], first: int, last: int):
        self.first, self.last = first, last  # 1-based, inclusive
        self._lines = lines
        # The line naming what it binds: a decorated def's or class's own line.
        self.head = next((line for line in lines[first - 1:last]
                          if not line.startswith("@") and line[:1] not in _NOT_A_START), lines[first - 1])
        # Its bindings may be anywhere in it: a block (`if TYPE_CHECKING: import torch`), an import.
        self.binds_inside = bool(_COMPOUND_HEAD.match(self.head) or _IMPORT_HEAD.match(self.head))
        defined = _DEFINITION_HEAD.match(self.head)
        self.defines = defined.group(1) if defined else None  # a def's or class's name

    @functools.cached_property
    def text(self) -> str:
        return "\n".join(self._lines[self.first - 1:self.last])

    @functools.cached_property
    def node(self) -> ast.stmt | None:
        """The statement, at its own line numbers (the lines before it parsed as blank); None
        when its text is not one statement (a line at column 0 inside a string cut it)."""
        try:
            body = ast.parse("\n" * (self.first - 1) + self.text).body
        except (SyntaxError, ValueError, RecursionError):
            return None
        return body[0] if len(body) == 1 else None

    def binds(self, name: str) -> bool:
        if self.defines is not None:
            return name == self.defines
        return self.node is not None and name in _bound_names(self.node)

    @functools.cached_property
    def reads(self) -> frozenset[str]:
        return _read_names(self.node) if self.node is not None else frozenset()


class OversizedModule:
    """A module over MAX_PROJECT_MODULE_SIZE, read once while its file is unchanged. It is never
    analysed, nor even parsed, whole: its top-level classes are parsed for output records'
    fields, and the slice around one of its functions is cut from its top-level statements,
    found by their lines at column 0 and parsed one by one as the slice needs them. Parsing
    and indexing the whole module (transformers' modeling_utils.py, 280 KB: 75 ms) cost a
    fresh flake8 on a typical model file a third of its time, and keeping the trees of the 11
    such modules that 200 sampled library files reach, 39 MiB."""

    def __init__(self, path: str):
        self.path = path
        try:
            with open(path, encoding="utf-8") as handle:
                self.text = handle.read()
        except (OSError, UnicodeDecodeError):
            self.text = ""
        self._slices: dict[tuple[str, str], SourceModule | None] = {}
        self._binders: dict[str, list[int] | None] = {}

    @functools.cached_property
    def classes(self) -> dict[str, ast.ClassDef]:
        try:
            body = ast.parse(self.text).body
        except (SyntaxError, ValueError, RecursionError):
            return {}
        return {node.name: node for node in body if isinstance(node, ast.ClassDef)}

    @functools.cached_property
    def statements(self) -> list[TopStatement]:
        """The top-level statements, by the lines that start them: at column 0, outside a
        triple-quoted string, not a comment, a closing bracket or a continued line; a
        decorator starts the statement it decorates."""
        lines = self.text.split("\n")  # as the tokenizer counts them: read with universal newlines
        starts, quote, line, offset = [], None, 1, 0
        quotes = _TRIPLE_QUOTES.finditer(self.text)
        pending = next(quotes, None)
        for match in _LINE_AT_COLUMN_0.finditer(self.text):
            while pending is not None and pending.start() < match.start():  # a line in a string starts nothing
                quote = pending.group() if quote is None else None if pending.group() == quote else quote
                pending = next(quotes, None)
            line += self.text.count("\n", offset, match.start())
            offset = match.start()
            if quote is None and not (line > 1 and lines[line - 2].endswith("\\")):
                starts.append(line)
        merged = [n for i, n in enumerate(starts) if i == 0 or not lines[starts[i - 1] - 1].startswith("@")]
        ends = [n - 1 for n in merged[1:]] + [len(lines)]
        return [TopStatement(lines, first, last) for first, last in zip(merged, ends)]

    @functools.cached_property
    def _heads(self) -> dict[str, list[int]]:
        """Each name a statement may bind on its head line (a def's or class's own name, any
        word of another statement's): the statements having it there."""
        found: dict[str, list[int]] = {}
        for index, statement in enumerate(self.statements):
            for word in {statement.defines} if statement.defines else set(re.findall(r"\w+", statement.head)):
                found.setdefault(word, []).append(index)
        return found

    @functools.cached_property
    def _blocks(self) -> list[int]:
        return [index for index, statement in enumerate(self.statements) if statement.binds_inside]

    def binders(self, name: str) -> list[int] | None:
        """The indices of the top-level statements binding `name`; None when one that may bind it
        does not parse alone (the slice is then not made)."""
        if name not in self._binders:
            word = re.compile(rf"\b{re.escape(name)}\b")
            candidates = sorted({*self._heads.get(name, ()),
                                 *(i for i in self._blocks if word.search(self.statements[i].text))})
            found: list[int] | None = []
            for index in candidates:
                statement = self.statements[index]
                if statement.defines is None and statement.node is None:
                    found = None
                    break
                if statement.binds(name):
                    found.append(index)
            self._binders[name] = found
        return self._binders[name]

    def function_slice(self, modname: str, name: str) -> SourceModule | None:
        """The module `modname` cut down to its top-level function `name` and the top-level
        statements binding the names it reads, transitively (imports, assignments, other
        functions and classes): analysing the whole module cost every file importing it
        (transformers' import_utils.py, 134 KB) 64 ms. The statements keep their line numbers.
        None when `name` is bound by something else than a `def`, or when the slice would
        exceed MAX_SLICE_LINES or a statement it needs does not parse alone: a name left out of
        it would not resolve, and a name that does not resolve may be taken for a builtin."""
        key = (modname, name)
        if key not in self._slices:
            self._slices[key] = self._build_slice(modname, name)
        return self._slices[key]

    def _build_slice(self, modname: str, name: str) -> SourceModule | None:
        if not any(self.text.startswith(head) or f"\n{head}" in self.text for head in (f"def {name}(", f"async def {name}(")):
            return None  # no top-level def of it (a class, an assignment): the module is not indexed
        own = self.binders(name)
        if not own or not all(self.statements[i].head.startswith(("def ", "async ")) for i in own):
            return None  # bound otherwise too
        chosen = self._read_closure(own)
        if chosen is None:
            return None
        body = [self.statements[i].node for i in sorted(chosen)]
        if any(node is None for node in body):
            return None
        try:
            node = parse_source(ast.Module(body=body, type_ignores=[]), modname, self.path, self.text)
        except (SyntaxError, ValueError, RecursionError):
            return None
        return SourceModule(node, self.path, modname, self.text, sliced=True)

    def _read_closure(self, start: list[int]) -> set[int] | None:
        """The indices of `start` and of every top-level statement binding a name that the
        chosen statements read; None past MAX_SLICE_LINES lines, or when a binder does not parse."""
        chosen, pending, seen, lines = set(start), list(start), set(), 0
        while pending:
            statement = self.statements[pending.pop()]
            lines += statement.last - statement.first + 1
            if lines > MAX_SLICE_LINES:
                return None
            for read in statement.reads - seen:
                seen.add(read)
                binders = self.binders(read)
                if binders is None:
                    return None
                for index in binders:
                    if index not in chosen:
                        chosen.add(index)
                        pending.append(index)
        return chosen


@functools.lru_cache(maxsize=8)
def _oversized_module(path: str, stamp: tuple[int, int]) -> OversizedModule:
    """The module at `path` over MAX_PROJECT_MODULE_SIZE, while `stamp` (mtime, size) holds."""
    return OversizedModule(path)


def _bound_names(statement: ast.stmt) -> Iterator[str]:
    """The module-level names a top-level statement binds (not the locals of the functions,
    classes, lambdas and comprehensions in it)."""
    stack: list[ast.AST] = [statement]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            yield from (alias.asname or alias.name.split(".")[0] for alias in node.names if alias.name != "*")
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            yield node.id
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            yield node.name
        if not isinstance(node, _OWN_SCOPES):
            stack.extend(ast.iter_child_nodes(node))


_OWN_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp, ast.SetComp,
               ast.DictComp, ast.GeneratorExp)


def _read_names(statement: ast.stmt) -> frozenset[str]:
    """Every name a statement reads, its functions' bodies included (a superset of the
    module-level names it needs: a local that shadows one only costs its binder in a slice)."""
    return frozenset(node.id for node in ast.walk(statement) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load))


@functools.lru_cache(maxsize=1024)
def _oversized_record(path: str, stamp: tuple[int, int], name: str) -> dict[str, bool] | None:
    """Resolver.oversized_output_record's answer (shared: read it, never change it), worked
    out once per name while the file is unchanged: every call not followed asks, 2,601 times
    over the 200 sampled library files, and the search of the module's text for `name` took
    0.9 s of the plugin's 34 s there."""
    return _record_fields(_oversized_classes(path, stamp, name), name, 0)


def _oversized_classes(path: str, stamp: tuple[int, int], name: str) -> dict[str, ast.ClassDef]:
    """The top-level classes of a module over MAX_PROJECT_MODULE_SIZE ({} for one below it,
    which is analysed in full), when it has a `@dataclass` class `name`: the `ast` parse (about
    10 ms for 118 KB) is done only for such a module, once while the file is unchanged."""
    _, size = stamp
    if size <= MAX_PROJECT_MODULE_SIZE:
        return {}
    module = _oversized_module(path, stamp)
    declared = rf"^@(?:dataclasses\.)?dataclass\b.*\n(?:@.*\n)*class {re.escape(name)}\b"
    return module.classes if re.search(declared, module.text, re.M) else {}


def _record_fields(classes: dict[str, ast.ClassDef], name: str, depth: int) -> dict[str, bool] | None:
    """Fields of the `@dataclass` `name` over an OUTPUT_RECORD_BASES class through classes of
    the same module, bases' first (name: its default is None)."""
    cls = classes.get(name)
    if cls is None or depth > MAX_RESOLVE_DEPTH or len(cls.bases) != 1 or cls.keywords:
        return None
    if not any(_ast_last_name(d.func if isinstance(d, ast.Call) else d) == DATACLASS for d in cls.decorator_list):
        return None
    base = _ast_last_name(cls.bases[0])
    fields = {} if base in OUTPUT_RECORD_BASES else _record_fields(classes, base, depth + 1)
    if fields is None:
        return None
    fields = dict(fields)
    for statement in cls.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) \
                and "ClassVar" not in ast.unparse(statement.annotation):
            value = statement.value
            fields[statement.target.id] = isinstance(value, ast.Constant) and value.value is None
    return fields


def _ast_last_name(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return expr.id if isinstance(expr, ast.Name) else None


def _last_name(expr: nodes.NodeNG) -> str | None:
    if isinstance(expr, nodes.Subscript):
        expr = expr.value
    if isinstance(expr, nodes.Attribute):
        return expr.attrname
    return expr.name if isinstance(expr, nodes.Name) else None


def _relative_module(module: SourceModule, modname: str | None, level: int) -> str | None:
    package = module.modname.split(".")
    if not module.node.package:
        package = package[:-1]
    if level - 1 > len(package):
        return None
    if level > 1:
        package = package[: len(package) - (level - 1)]
    return ".".join(p for p in [*package, modname or ""] if p)


_BUILTIN_NAMES = frozenset(dir(__import__("builtins")))


@functools.lru_cache(maxsize=1)
def _table_names() -> frozenset[str]:
    """Library functions whose meaning comes from tables.py (transformers'
    is_torchdynamo_compiling), which a followed library must not replace with its source."""
    from .tables import STATIC_FUNCTIONS  # late: tables imports the values, which import us

    return frozenset(name for name in STATIC_FUNCTIONS if name.split(".", 1)[0] not in NEVER_FOLLOWED)


def _torch_class_made_at_import(qname: str) -> str:
    """The torch class a library name no statement binds stands for (tables.RUNTIME_TORCH_SUBCLASSES:
    pyro's TransformedDistribution), else the name itself."""
    from .tables import RUNTIME_TORCH_SUBCLASSES  # late: tables imports the values, which import us

    return RUNTIME_TORCH_SUBCLASSES.get(qname, qname)


# ---------------------------------------------------------------------------
# Decorators

# A decorator that runs the function's body with dynamo settings patched (see config_patch).
CONFIG_PATCH = "torch._dynamo.config.patch"
TRANSPARENT_DECORATORS = frozenset({
    "torch.no_grad", "torch.enable_grad", "torch.inference_mode", "torch.autograd.no_grad",
    "torch.jit.ignore", "torch.jit.unused", "torch.jit.export", "torch.compile", CONFIG_PATCH,
    "torch.compiler.compile", "functools.wraps", "typing.overload", "torch.autocast",
    "torch.amp.autocast", "torch.cuda.amp.autocast", "torch.amp.custom_fwd",
    "torch.cuda.amp.custom_fwd", "abc.abstractmethod", "typing.final",
    "staticmethod", "classmethod", "property", "functools.cached_property",
    # `with manager():` runs the generator's body around the block; dynamo traces it
    # (measured: cfg_user_context_managers.py), so it is inlined where the `with` calls it.
    "contextlib.contextmanager",
})
# Decorators of model libraries that keep the function's body as the code that runs (they
# add docs, convert outputs or rename arguments), matched by their last name.
TRANSPARENT_LIBRARY_DECORATORS = frozenset({
    "auto_docstring", "add_start_docstrings", "add_start_docstrings_to_model_forward",
    "replace_return_docstrings", "add_code_sample_docstrings", "can_return_tuple",
    "check_model_inputs", "deprecate_kwarg", "merge_with_config_defaults", "capture_outputs",
    "use_kernel_forward_from_hub", "use_kernelized_func", "use_kernel_func_from_hub",
    "apply_forward_hook", "dataclass", "register_to_config",
    "lru_cache", "cache", "wraps", "overload", "final", "abstractmethod", "total_ordering",
    "register_notrace_module", "register_notrace_function",  # timm: marks for torch.fx, returns its argument
})
# Class decorators that replace forward by one implementation picked from the configuration at
# run time (matched by last name): the setting, its default and the value that runs the forward
# written in the class. transformers' experts dispatch: grouped_mm unless asked for, measured on
# CPU with the pinned version (modeling_utils.get_correct_experts_implementation).
CONFIG_DISPATCH_DECORATORS = {
    "use_experts_implementation": ("config._experts_implementation", "grouped_mm", "eager"),
}
# unittest.mock.patch and its .object/.dict forms wrap the function in a patcher from the
# unittest directory, which dynamo skips (GB0007, GB0008; measured: cfg_mock_decorated.py).
MOCK_PATCH_DECORATORS = ("unittest.mock.patch",)
DISABLE_DECORATORS = frozenset({
    "torch.compiler.disable", "torch._dynamo.disable", "torch._disable_dynamo",
})


def decorator_names(resolver: Resolver, function: nodes.FunctionDef | nodes.ClassDef) -> list[str]:
    names = resolver._decorators.get(function)  # noqa: SLF001 - the resolver's per-file cache
    if names is None:
        names = resolver._decorators[function] = [  # noqa: SLF001
            _decorator_name(resolver, d) for d in (function.decorators.nodes if function.decorators else ())]
    return names


def _decorator_name(resolver: Resolver, decorator: nodes.NodeNG) -> str:
    """Qualified name of a decorator; a library decorator known by name keeps its bare name,
    so that telling a property from a staticmethod never parses the library defining it."""
    bare = _last_name(_decorated(decorator))
    if bare in TRANSPARENT_LIBRARY_DECORATORS:
        return bare
    return _decorator_qname(resolver, decorator) or "?"


def is_disabled(resolver: Resolver, function: nodes.FunctionDef) -> bool:
    return any(name in DISABLE_DECORATORS for name in decorator_names(resolver, function))


def is_mock_patched(resolver: Resolver, function: nodes.FunctionDef) -> bool:
    """Decorated with unittest.mock.patch (or .object, .dict): dynamo skips the patcher."""
    return any(name.startswith(MOCK_PATCH_DECORATORS) for name in decorator_names(resolver, function))


def is_opaque(resolver: Resolver, function: nodes.FunctionDef | nodes.ClassDef) -> bool:
    """A decorator we do not know may replace the function (or a class's forward): do not
    inline through it, and do not lint it as a root."""
    return unknown_decorator(resolver, function) is not None


def unknown_decorator(resolver: Resolver, function: nodes.FunctionDef | nodes.ClassDef) -> nodes.NodeNG | None:
    """The first decorator of `function` that is not known to leave it in place, if any."""
    for decorator in function.decorators.nodes if function.decorators else ():
        name = _decorator_name(resolver, decorator)
        if name in TRANSPARENT_LIBRARY_DECORATORS or name in TRANSPARENT_DECORATORS or name in DISABLE_DECORATORS:
            continue
        if name.endswith((".setter", ".getter", ".deleter")):
            continue
        target = decorator.func if isinstance(decorator, nodes.Call) else decorator
        binding = resolver.expr_binding(target)
        if binding is not None and binding.kind == "function" and _wraps_its_argument(binding.node):
            continue
        return decorator
    return None


def _wraps_its_argument(decorator: nodes.FunctionDef) -> bool:
    """A project decorator (or decorator factory) whose wrapper is made with functools.wraps
    calls the function it wraps: the body that runs is the decorated one."""
    for inner in nodes_of_class(decorator, nodes.FunctionDef):
        for node in inner.decorators.nodes if inner.decorators else ():
            target = node.func if isinstance(node, nodes.Call) else node
            if _last_name(target) == "wraps":
                return True
    return False


def find_method(resolver: Resolver, cls: nodes.ClassDef, name: str,
                after: nodes.ClassDef | None = None) -> tuple[nodes.FunctionDef, nodes.ClassDef] | None:
    """`name` defined as a def in the project part of `cls`'s MRO (after `after`, for super())."""
    order = resolver.mro(cls)
    if after is not None:
        order = order[order.index(after) + 1:] if after in order else []
    for owner in order:
        defined = owner.locals.get(name)
        if defined:
            node = defined[-1]
            return (node, owner) if isinstance(node, nodes.FunctionDef) else None
    return None


def find_class_attribute(resolver: Resolver, cls: nodes.ClassDef, name: str) -> nodes.NodeNG | None:
    """The value expression of a class-level `name = ...` in the project part of the MRO."""
    for owner in resolver.mro(cls):
        for node in owner.locals.get(name, ()):
            parent = node.parent
            if isinstance(node, nodes.AssignName) and isinstance(parent, (nodes.Assign, nodes.AnnAssign)):
                if parent.value is not None and parent.parent is owner:
                    return parent.value
            return None
    return None


def is_property(resolver: Resolver, function: nodes.FunctionDef) -> bool:
    return any(n in ("property", "functools.cached_property") for n in decorator_names(resolver, function))


def is_staticmethod(resolver: Resolver, function: nodes.FunctionDef) -> bool:
    return "staticmethod" in decorator_names(resolver, function)


# ---------------------------------------------------------------------------
# Discovery


@dataclass
class Root:
    """A compile root: a module's forward, or a function compiled with torch.compile."""

    function: nodes.FunctionDef
    cls: nodes.ClassDef | None  # the module class compiled
    owner: nodes.ClassDef | None = None  # the class defining `function`, when inherited
    # Settings the code gives torch.compile for this root: `@torch.compile(fullgraph=True)`.
    settings: dict[str, bool] = field(default_factory=dict)
    # A library's public function (--staticfx-library-roots): its callers' arguments are unknown.
    library: bool = False
    # Compiled by a torch.compile call or decorator of the project (--staticfx-compiled-only keeps these).
    compiled: bool = False

    @property
    def name(self) -> str:
        return f"{self.cls.name}.{self.function.name}" if self.cls else self.function.name


@dataclass
class SkippedRoot:
    """A module class that would be a root, left out because of a decorator we do not know."""

    cls: nodes.ClassDef
    decorated: nodes.ClassDef  # the class carrying the decorator: cls or a class forward comes through
    decorator: nodes.NodeNG

    @property
    def name(self) -> str:
        return f"{self.cls.name}.forward"


def find_roots(resolver: Resolver, skipped: list[SkippedRoot] | None = None,
               library_roots: bool = False, compile_calls: Sequence[CompileCall] = ()) -> list[Root]:
    """The compile roots of the linted file; module classes left out because of an unknown
    decorator are added to `skipped`, when given. With `library_roots`, the file's public
    functions and methods and its `__call__` overrides are roots too. `compile_calls` (of the
    project, or of the file alone) give the settings of classes and functions they compile,
    and make such functions roots."""
    roots = []
    compiled = _compiled_here(resolver, compile_calls)
    for node in definitions(resolver.main.node):
        if isinstance(node, nodes.ClassDef):
            owner = next((c for c in resolver.iter_mro(node) if "forward" in c.locals), None)
            forward = owner.locals["forward"][-1] if owner is not None else None
            # A subclass that only changes attributes (report_stats = False) compiles the
            # inherited forward differently: it is a root too, when that forward is in this file.
            if isinstance(forward, nodes.FunctionDef) and owner.root() is node.root() \
                    and resolver.is_module_class(node):
                opaque = resolver.opaque_decorator(node)
                if opaque is None:
                    roots.append(Root(forward, node, owner, settings=compiled.get(node, {}),
                                      compiled=node in compiled))
                elif skipped is not None:
                    skipped.append(SkippedRoot(node, *opaque))
        elif node.decorators:
            compiles = [d for d in node.decorators.nodes if _imported_from_torch(resolver, _decorated(d))
                        and _decorator_qname(resolver, d) in COMPILE_DECORATORS]
            if compiles:
                cls = node.parent if isinstance(node.parent, nodes.ClassDef) else None
                roots.append(Root(node, cls, settings=_compile_settings(compiles[0]), compiled=True))
    known = {root.function for root in roots}
    for node, settings in compiled.items():
        if isinstance(node, nodes.FunctionDef) and node not in known:
            known.add(node)
            roots.append(Root(node, None, settings=settings, compiled=True))
    for function, cls, call in _compiled_by_call(resolver):
        if function not in known:
            known.add(function)
            roots.append(Root(function, cls, settings=_compile_settings(call), compiled=True))
    for function, cls in _public_functions(resolver) if library_roots else ():
        if function not in known:
            known.add(function)
            roots.append(Root(function, cls, library=True))
    return roots


def nodes_of_class(node: nodes.NodeNG, klass: type | tuple[type, ...],
                   skip: type | tuple[type, ...] | None = None) -> Iterator:
    """What astroid's `node.nodes_of_class(klass, skip)` yields, in its order, walked with a
    stack: astroid's nests a generator per level, so each node it yields passes up through every
    level above it (a sixth of the analysis of a model file went there)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, klass):
            yield current
        children = [child for child in current.get_children() if skip is None or not isinstance(child, skip)]
        children.reverse()
        stack.extend(children)


def definitions(scope: nodes.NodeNG) -> Iterator[nodes.ClassDef | nodes.FunctionDef]:
    """The classes and functions defined anywhere in `scope`, in `nodes_of_class` order.
    Only statements hold definitions, so no expression is walked (most of a module's nodes),
    and a function body not built yet is built only when its statements define something."""
    for child in scope.get_children():
        if isinstance(child, (nodes.ClassDef, nodes.FunctionDef)):
            yield child
            if isinstance(child, _LazyBody) and child.defines_nothing():
                continue
        if child.is_statement or isinstance(child, nodes.MatchCase):
            yield from definitions(child)


def _compiled_here(resolver: Resolver, calls: Sequence[CompileCall]) -> dict[nodes.NodeNG, dict[str, bool]]:
    """The top-level classes and functions of the linted file that `calls` compile, each with
    the settings its calls agree on (none where they differ)."""
    settings: dict[nodes.NodeNG, set] = {}
    main = resolver.main
    for call in calls:
        defined = main.node.locals.get(call.qname.rsplit(".", 1)[-1], ())
        node = defined[-1] if defined else None
        if not isinstance(node, (nodes.ClassDef, nodes.FunctionDef)):
            continue
        if call.qname != node.qname():  # named through a re-export (`from pkg import Net`)
            bound = resolver.qualified(call.qname)
            if bound.kind not in ("class", "function") or bound.qname != node.qname() \
                    or bound.module is None or os.path.abspath(bound.module.path) != os.path.abspath(main.path):
                continue
        settings.setdefault(node, set()).add(call.settings)
    return {node: dict(next(iter(found))) if len(found) == 1 else {} for node, found in settings.items()}


def _public_functions(resolver: Resolver) -> Iterator[tuple[nodes.FunctionDef, nodes.ClassDef | None]]:
    """What users of a library may compile: its public functions, the public methods of its
    classes and every `__call__`; not what a decorator may replace or what is compiled away
    (torch.compiler.disable)."""
    scopes: list[tuple[list[nodes.NodeNG], nodes.ClassDef | None]] = [(resolver.main.node.body, None)]
    while scopes:
        body, cls = scopes.pop(0)
        for node in body:
            if isinstance(node, nodes.ClassDef):
                scopes.append((node.body, node))
            elif isinstance(node, nodes.FunctionDef) and (not node.name.startswith("_") or
                                                          (cls is not None and node.name == "__call__")) \
                    and not is_opaque(resolver, node) and not is_disabled(resolver, node):
                yield node, cls


COMPILE_SETTINGS = ("fullgraph",)
# torch._dynamo.config fields a module (or a config.patch) may set, which change where dynamo
# breaks: the switches, and the sets of functions dynamo drops (`ignore_logger_methods` is the
# older name of `ignore_logging_functions`), each by the Options field that mirrors it.
CONFIG_SETTINGS = {"capture_scalar_outputs": "capture_scalar_outputs",
                   "capture_dynamic_output_shape_ops": "capture_dynamic_output_shape_ops"}
CONFIG_FUNCTION_SETS = {"ignore_logger_methods": "ignore_logging_functions",
                        "ignore_logging_functions": "ignore_logging_functions"}


def _compile_settings(call: nodes.NodeNG) -> dict[str, bool]:
    """The settings written in a torch.compile call or decorator (`fullgraph=True`)."""
    keywords = (call.keywords or []) if isinstance(call, nodes.Call) else []
    return {k.arg: k.value.value for k in keywords
            if k.arg in COMPILE_SETTINGS and isinstance(k.value, nodes.Const) and isinstance(k.value.value, bool)}


def config_patch(resolver: Resolver, function: nodes.FunctionDef) -> dict[str, Any] | None:
    """The settings of a `@torch._dynamo.config.patch(...)` decorating `function` (by Options
    field, as `written_setting` reads them), None when there is none. Dynamo cannot enter the
    patch's context manager (GB0142): a call of the function from compiled code breaks, and the
    function compiles as a frame of its own, with the patch on (a patched forward compiles with it)."""
    for decorator in function.decorators.nodes if function.decorators else ():
        if isinstance(decorator, nodes.Call) and _imported_from_torch(resolver, decorator.func) \
                and _decorator_qname(resolver, decorator) == CONFIG_PATCH:
            settings = {}
            for keyword in decorator.keywords or ():
                written = written_setting(resolver, keyword.arg, keyword.value)
                if written is not None:
                    settings[written[0]] = written[1]
            return settings
    return None


def config_settings(resolver: Resolver) -> dict[str, Any]:
    """The dynamo settings the linted module writes at its top level, by Options field:
    `torch._dynamo.config.capture_scalar_outputs = True`,
    `torch._dynamo.config.ignore_logger_methods = {logger.info}`,
    `torch._dynamo.config.reorderable_logging_functions.add(print)`."""
    settings: dict[str, Any] = {}
    for statement in resolver.main.node.body:
        added = _reorderable_function(resolver, statement)
        if added is not None:
            settings["reorderable_logging_functions"] = (*settings.get("reorderable_logging_functions", ()), added)
        if not isinstance(statement, nodes.Assign):
            continue
        for target in statement.targets:
            if isinstance(target, nodes.AssignAttr) and _imported_from_torch(resolver, target.expr) \
                    and resolver.expr_qname(target.expr) == "torch._dynamo.config":
                written = written_setting(resolver, target.attrname, statement.value)
                if written is not None:
                    settings[written[0]] = written[1]
    return settings


def written_setting(resolver: Resolver, name: str | None, value: nodes.NodeNG) -> tuple[str, Any] | None:
    """(Options field, value) of a dynamo setting the code writes, when it is one the options
    mirror and its value is written out: a switch's True or False, a set of functions as the
    qualified names the interpreter gives their calls."""
    if name in CONFIG_SETTINGS and isinstance(value, nodes.Const) and isinstance(value.value, bool):
        return CONFIG_SETTINGS[name], value.value
    if name in CONFIG_FUNCTION_SETS and isinstance(value, (nodes.Set, nodes.List, nodes.Tuple)):
        names = (_logging_function_name(resolver, element) for element in value.elts)
        return CONFIG_FUNCTION_SETS[name], tuple(qname for qname in names if qname is not None)
    return None


def _logging_function_name(resolver: Resolver, expr: nodes.NodeNG) -> str | None:
    """The name the interpreter gives calls of a function listed in ignore_logger_methods: a
    method of a module-level `logger = logging.getLogger(...)` is `logging.Logger.<method>`
    (dynamo then drops it on that logger only; here on every logger, as the option does);
    `logging.info` and `logging.Logger.info` are their own names."""
    from .tables import LOGGER_FACTORIES  # late: tables imports the values, which import us

    if isinstance(expr, nodes.Attribute):
        receiver = resolver.expr_binding(expr.expr)
        if receiver is not None and receiver.kind == "assign" and isinstance(receiver.node, nodes.Call) \
                and resolver.expr_qname(receiver.node.func) in LOGGER_FACTORIES:
            return f"logging.Logger.{expr.attrname}"
    return resolver.expr_qname(expr)


def _reorderable_function(resolver: Resolver, statement: nodes.NodeNG) -> str | None:
    """`print` for a top-level `torch._dynamo.config.reorderable_logging_functions.add(print)`."""
    call = statement.value if isinstance(statement, nodes.Expr) else None
    func = call.func if isinstance(call, nodes.Call) else None
    if not (isinstance(func, nodes.Attribute) and func.attrname == "add" and len(call.args) == 1
            and isinstance(call.args[0], nodes.Name) and call.args[0].name == "print"
            and isinstance(func.expr, nodes.Attribute) and func.expr.attrname == "reorderable_logging_functions"
            and _imported_from_torch(resolver, func.expr.expr)
            and resolver.expr_qname(func.expr.expr) == "torch._dynamo.config"):
        return None
    return "print"


# What the text of a `torch.compile(f)` call holds (with a literal prefix: a fast scan; a
# `recompile(` only costs the walk).
_COMPILE_CALL = re.compile(r"compile\s*\(")


def _torch_compile_calls(resolver: Resolver) -> Iterator[nodes.Call]:
    """The file's calls of torch.compile with something to compile."""
    if resolver.main.source is not None and not _COMPILE_CALL.search(resolver.main.source):
        return  # walking the tree cost 1.1 s over 200 library files, which all say "compil..."
    for call in nodes_of_class(resolver.main.node, nodes.Call):
        func = call.func
        name = func.attrname if isinstance(func, nodes.Attribute) else getattr(func, "name", None)
        if name == "compile" and call.args and _imported_from_torch(resolver, func) \
                and resolver.expr_qname(func) in COMPILE_DECORATORS:
            yield call


def _compiled_by_call(resolver: Resolver) -> Iterator[tuple[nodes.FunctionDef, nodes.ClassDef, nodes.Call]]:
    """Methods the file compiles by calling torch.compile on them: `self.f = torch.compile(self.f)`
    on a method of the class (compiled.py reads the calls that name a function or a class)."""
    for call in _torch_compile_calls(resolver):
        target = call.args[0]
        if isinstance(target, nodes.Attribute) and isinstance(target.expr, nodes.Name) \
                and target.expr.name == "self":
            cls = call.frame().parent if isinstance(call.frame(), nodes.FunctionDef) else None
            if isinstance(cls, nodes.ClassDef):
                method = cls.locals.get(target.attrname, ())
                if method and isinstance(method[-1], nodes.FunctionDef):
                    yield method[-1], cls, call


def _imported_from_torch(resolver: Resolver, expr: nodes.NodeNG) -> bool:
    """Is the name at the root of `expr` imported from torch? (A cheap test before resolving,
    which may parse project modules.)"""
    while isinstance(expr, nodes.Attribute):
        expr = expr.expr
    if not isinstance(expr, nodes.Name):
        return False
    for node in resolver.main.node.locals.get(expr.name, ()):
        if isinstance(node, nodes.ImportFrom) and (node.modname or "").split(".")[0] == "torch":
            return True
        if isinstance(node, nodes.Import) and any(name.split(".")[0] == "torch" for name, _ in node.names):
            return True
    return False


def _decorated(decorator: nodes.NodeNG) -> nodes.NodeNG:
    """`torch.compile` for both `@torch.compile` and `@torch.compile(mode=...)`."""
    return decorator.func if isinstance(decorator, nodes.Call) else decorator


def _decorator_qname(resolver: Resolver, decorator: nodes.NodeNG) -> str | None:
    if isinstance(decorator, nodes.Call):
        decorator = decorator.func
    return resolver.expr_qname(decorator)
