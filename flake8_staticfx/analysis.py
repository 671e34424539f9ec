"""The pipeline for one file: discover -> inline/build -> annotate, contained per root."""
from __future__ import annotations

import ast
import os
import time
from dataclasses import dataclass, field

from .annotate import annotate
from .build import BudgetExceeded, Builder, FileState
from .config import Options
from .discover import (
    Resolver,
    SourceModule,
    find_roots,
    parse_source,
    project_for,
    project_root,
)
from .ir import Graph


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


def might_have_roots(source: str) -> bool:
    """Cheap pre-filter: no compile root can exist without `forward` or torch being named."""
    return "torch" in source or "forward" in source


def analyze(source: str, path: str, tree: ast.Module | None = None,
            options: Options | None = None) -> FileAnalysis:
    options = options or Options()
    path = os.path.abspath(path)
    result = FileAnalysis(path, source.splitlines())
    if not might_have_roots(source):
        return result
    try:
        tree = tree if tree is not None else ast.parse(source)
        root_dir, modname = project_root(path)
        module = parse_source(tree, source, modname, path)
        resolver = Resolver(SourceModule(module, path, modname), project_for(root_dir),
                            module_bases=options.module_bases)
        roots = find_roots(resolver)
    except (SyntaxError, ValueError, RecursionError) as exc:
        result.notices.append(Notice(1, 0, os.path.basename(path), _describe(exc)))
        return result
    state = FileState(time.monotonic() + options.file_time_budget, options.reuse_inlined)
    for root in roots:
        graph = Graph(root.name, path)
        try:
            if time.monotonic() > state.deadline:
                raise BudgetExceeded("time budget for the file used up")
            Builder(resolver, options, state, graph).build(root)
        except Exception as exc:  # noqa: BLE001 - never crash flake8: contain it at the root
            result.notices.append(Notice(root.function.lineno, root.function.col_offset,
                                         root.name, _describe(exc)))
        annotate(graph, options)
        result.graphs.append(graph)
    return result


def _describe(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}"[:120] if text else type(exc).__name__
