"""The pipeline for one file: discover -> inline/build -> annotate, contained per root."""
from __future__ import annotations

import ast
import contextlib
import os
import re
import sys
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Iterator

from .annotate import annotate
from .discover.compiled import CompileCall, CompileIndex, compile_calls, compile_index, say_no_compile_call
from .config import Options, might_have_roots
from .interpret.init_interpreter import init_attributes
from .interpret.interpreter import BudgetExceeded, FileState, Interpreter
from .discover.parse import parse_source
from .discover.projects import SourceModule, libraries_for, project_for, project_root
from .discover.resolver import CONFIG_DISPATCH_DECORATORS, Resolver
from .discover.roots import SkippedRoot, config_settings, find_roots
from .ir import Graph, GraphBreakRegion
from .reach import reached_breaks
from .torch_versions import TorchVersion, resolve

if TYPE_CHECKING:
    from .recompiles import FrameCompiles, Recompile


@dataclass
class Notice:
    """Why a root (or the file) was not fully analysed; reported as the opt-in SFX900."""

    line: int
    col: int
    what: str
    reason: str


@dataclass
class FileAnalysis:
    path: str
    lines: list[str] = field(default_factory=list)
    graphs: list[Graph] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    torch: TorchVersion | None = None  # the release the answers are for (None: no root looked for)
    # Over the calls the file's own code makes (its drivers): the compiles of each compiled
    # frame, and the places that make one recompile.
    frame_compiles: list[FrameCompiles] = field(default_factory=list)
    recompiles: list[Recompile] = field(default_factory=list)
    # Breaks in this file only the roots of the files importing it reach, at its lines (reach.py).
    reached: list[GraphBreakRegion] = field(default_factory=list)


def analyze(source: str, path: str, tree: ast.Module | None = None,
            options: Options | None = None) -> FileAnalysis:
    options = options or Options()
    path = os.path.abspath(path)
    result = FileAnalysis(path, source.splitlines())
    if not might_have_roots(source):
        return result
    with _recursion_limit(RECURSION_LIMIT):
        _analyze(source, path, tree, options, result)
    return result


RECURSION_LIMIT = 12_000  # deep expressions and class chains recurse in astroid and in us
# A driver compiles through `torch.compile` or `.compile()` (recompiles/drivers.py): without the
# name there is no compiled frame to count (`_can_compile_fullgraph` does not name it).
COMPILE_NAMED = re.compile(r"\bcompile\b")
# A forward counting on its module (recompiles/self_state.py): `self.n += 1`, `self.n = self.n + 1`,
# `self.seen.append(x)`.
COUNTER_WRITTEN = re.compile(r"self\.(\w+)\s*(?:[-+]=|=\s*self\.\1\s*[-+]|=\s*\d+\s*\+\s*self\.\1\b)"
                             r"|self\.\w+\.(?:append|extend|insert)\(")


@contextlib.contextmanager
def _recursion_limit(limit: int) -> Iterator[None]:
    """Python 3.11 calls between Python functions do not use the C stack, so a higher limit
    turns RecursionErrors on deep but legal code into results."""
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)


def _analyze(source: str, path: str, tree: ast.Module | None, options: Options,
             result: FileAnalysis) -> None:
    try:
        tree = tree if tree is not None else ast.parse(source)
        root_dir, modname = project_root(path)
        module = parse_source(tree, modname, path, source)
        result.torch = torch_for(path, options)
        options = replace(options, torch_version=result.torch.minor)
        resolver = Resolver(SourceModule(module, path, modname, source), project_for(root_dir, modname),
                            module_bases=options.module_bases,
                            libraries=libraries_for(options.library_path, root_dir))
        skipped: list[SkippedRoot] = []
        index = compile_index(resolver.project.root, resolver.project.packages, options.compiled_only)
        calls = _compile_calls(resolver, source, tree, index)
        roots = find_roots(resolver, skipped, library_roots=options.library_roots, compile_calls=calls)
        if options.compiled_only:
            if any(root.compiled for root in roots) or calls:
                roots = [root for root in roots if root.compiled or root.library]
            else:
                say_no_compile_call(root_dir)
    except (SyntaxError, ValueError, RecursionError) as exc:
        result.notices.append(Notice(1, 0, os.path.basename(path), _describe(exc)))
        return
    for root in skipped:
        result.notices.append(Notice(root.cls.lineno, root.cls.col_offset, root.name, _unknown_decorator(root)))
    state = FileState(time.process_time() + options.file_time_budget, options.reuse_inlined,
                      options.max_steps, init_attributes)
    in_code = config_settings(resolver)
    for root in roots:
        root_options = replace(options.with_written(in_code), **root.settings)  # what the code itself sets
        graph = Graph(root.name, path)
        try:
            if time.process_time() > state.deadline or state.steps > state.max_steps:
                raise BudgetExceeded("the file's analysis budget is used up")
            Interpreter(resolver, root_options, state, graph).build(root)
        except Exception as exc:  # noqa: BLE001 - never crash flake8: contain it at the root
            result.notices.append(Notice(root.function.lineno, root.function.col_offset,
                                         root.name, _describe(exc)))
        annotate(graph, root_options)
        result.graphs.append(graph)
    if index is not None:
        try:
            result.reached = reached_breaks(resolver, index, options, state)
        except Exception as exc:  # noqa: BLE001 - never crash flake8: the other files' roots are left out
            result.notices.append(Notice(1, 0, "roots of the files importing it", _describe(exc)))
    compiles = COMPILE_NAMED.search(source) is not None
    if compiles or COUNTER_WRITTEN.search(source):
        # Imported here: a file that never names `compile` nor counts on `self` has no driver and
        # no counter, and a fresh flake8 on it (an editor's) would pay for importing the
        # recompiles package for nothing.
        from .recompiles import any_caller_recompiles, partly_eager_forwards, predict as predict_recompiles, \
            resumed_forwards, skipped_forwards
        try:
            skipped = skipped_forwards(result.graphs, tree, path)
            if compiles:
                result.frame_compiles, result.recompiles = predict_recompiles(
                    tree, skipped, result.torch.minor, partly_eager_forwards(result.graphs, tree, path),
                    resumed_forwards(result.graphs, tree, path))
            result.recompiles += any_caller_recompiles(
                tree, {graph.root for graph in result.graphs}, skipped, {frame.root for frame in result.frame_compiles},
                {root.name for root in roots if root.compiled})
        except Exception as exc:  # noqa: BLE001 - never crash flake8: the recompiles are left out
            result.notices.append(Notice(1, 0, "recompiles", _describe(exc)))
    for (package, line, col), qname in state.missing_libraries.items():
        result.notices.append(Notice(line, col, qname, f"package `{package}` not found on the library "
                                     "search path (--staticfx-library-path): the call is not followed"))
    for (line, col), qname in state.unbound_names.items():
        result.notices.append(Notice(line, col, qname, "no statement the linter follows binds it (made at "
                                     "import time, a lazy `__getattr__`): the call is not followed"))
    for (line, col), module in state.opaque_modules.items():
        result.notices.append(Notice(line, col, module, f"`{module}` is built from values not known statically "
                                     "(a count, a block class): drawn as one opaque call"))


def torch_for(path: str, options: Options) -> TorchVersion:
    """The torch release the answers for the file at `path` are for (torch_versions.resolve),
    looked for from its project root."""
    root_dir, _ = project_root(os.path.abspath(path))
    return resolve(options.torch_version, libraries_for(options.library_path, root_dir).search_path, root_dir)


def _compile_calls(resolver: Resolver, source: str, tree: ast.Module,
                   index: CompileIndex | None) -> list[CompileCall]:
    """The torch.compile calls of the project (of the linted file alone, when the project is
    too big to index by default)."""
    main = resolver.main
    own = compile_calls(source, main.modname, main.path, tree)
    return own if index is None else index.calls(main.path, own)


def _unknown_decorator(root: SkippedRoot) -> str:
    """Why the root is left out: the decorator may replace forward with something we never see."""
    try:
        text = root.decorator.as_string()
    except Exception:  # noqa: BLE001 - as_string on odd nodes
        text = type(root.decorator).__name__
    on = "" if root.decorated is root.cls else f" on `{root.decorated.name}`"
    dispatch = CONFIG_DISPATCH_DECORATORS.get(text.split("(")[0].rsplit(".", 1)[-1])
    if dispatch:
        setting, default, own = dispatch
        return f"`{setting}` picks the forward at run time ({default} by default); this one runs if \"{own}\""
    return f"unknown decorator: `@{' '.join(text.split())}`{on} may replace forward"


def _describe(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}"[:120] if text else type(exc).__name__
