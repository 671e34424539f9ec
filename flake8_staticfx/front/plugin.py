"""The flake8 adapter: reads options, runs the analysis, yields (line, col, message, type)."""
from __future__ import annotations

import ast
import atexit
import gc
import time
from typing import TYPE_CHECKING, Any, Iterator

from .. import __version__
from ..config import OPTION_SPECS, Options, might_have_roots, options_from, version_value
from ..discover.reads import recording
from .cache import ResultCache, cache_dir, entry_key
from ..rules import OFF_BY_DEFAULT
from .selection import unknown_codes

if TYPE_CHECKING:
    from ..analysis import FileAnalysis
    from .diagnostic import Diagnostic

GC_THRESHOLDS = (20_000, 50, 100)


def _relax_garbage_collector() -> None:
    """Collect less often in the flake8 process: the parsed trees the analysis keeps across
    files made half of its time garbage collection. Measured on 119 model files of
    transformers, timm and diffusers: flake8 with the plugin cost 1.84x flake8 alone with
    Python's thresholds, 1.40x with these, for 99 MB instead of 81 MB peak."""
    current = gc.get_threshold()
    gc.set_threshold(*(max(a, b) for a, b in zip(current, GC_THRESHOLDS)))


# Cached parses dropped since the last thaw before the frozen trees are collected again: a
# bound on the memory that dropped trees hold (PROJECT_CACHE_SIZE is 64 per package).
THAW_AFTER_EVICTIONS = 16
_evictions_at_thaw = 0
_settled_before = False  # has an analysis run in this process?


def _settle_collector() -> None:
    """Before each file's analysis, move what outlives files out of the garbage collector's
    reach, so that young collections beside flake8's checks do not sweep it again and again:
    the first time what the imports made (flake8's, astroid's, ours), later the parsed modules
    cached per project and library, once the previous file's cycles are collected. On the 200
    sampled library files the collector's time in flake8 + SFX fell from 4.5 s to 3.4 s. Done
    before a file rather than after it, and everything frozen at exit (the interpreter's
    shutdown collects what is not), a fresh flake8 on one file (an editor's) collects nothing:
    that collection was a tenth of the plugin's time there.

    A frozen tree dropped from a cache is reclaimed only after a thaw, done every
    THAW_AFTER_EVICTIONS dropped parses."""
    global _evictions_at_thaw, _settled_before  # noqa: PLW0603 - one collector per process
    from ..discover.projects import evicted_parses

    if _settled_before:
        evicted = evicted_parses()
        if evicted - _evictions_at_thaw >= THAW_AFTER_EVICTIONS:
            _evictions_at_thaw = evicted
            gc.unfreeze()
        gc.collect()
    else:
        atexit.register(gc.freeze)  # what the last file left needs no walk at shutdown either
    gc.freeze()
    _settled_before = True


class Checker:
    name = "flake8-staticfx"
    version = __version__
    options = Options()

    def __init__(self, tree: ast.Module, filename: str, lines: list[str]):
        self.tree = tree
        self.filename = filename
        self.lines = lines

    @classmethod
    def add_options(cls, manager: Any) -> None:
        for spec in OPTION_SPECS:  # config.py declares each option once, for flake8 and `check`
            if spec.kind == "bool":
                manager.add_option(spec.flag, action="store_true", parse_from_config=True, help=spec.help)
            elif spec.kind == "int":
                manager.add_option(spec.flag, type=int, default=spec.default_value, parse_from_config=True,
                                   help=spec.help)
            elif spec.kind == "version":
                manager.add_option(spec.flag, type=version_value, parse_from_config=True, help=spec.help)
            elif spec.kind == "choice":
                manager.add_option(spec.flag, choices=spec.choices, parse_from_config=True, help=spec.help)
            elif spec.kind == "path":
                manager.add_option(spec.flag, default="", parse_from_config=True, normalize_paths=True,
                                   help=spec.help)
            else:
                manager.add_option(spec.flag, default=",".join(spec.default_value), parse_from_config=True,
                                   comma_separated_list=True, help=spec.help)
        manager.extend_default_ignore(list(OFF_BY_DEFAULT))

    @classmethod
    def parse_options(cls, options: Any) -> None:
        unknown = unknown_codes(code for key in ("select", "ignore", "extend_select", "extend_ignore")
                                for code in getattr(options, key, None) or ())
        if unknown:  # flake8 checks a code's shape, not that it exists: SFX999 would select nothing
            raise SystemExit(f"flake8-staticfx: unknown code {', '.join(unknown)} in --select/--ignore "
                             f"(the codes: flake8-staticfx rule --all)")
        _relax_garbage_collector()
        cls.options = options_from(vars(options))

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        source = "".join(self.lines)
        for diagnostic in diagnose(source, self.filename, self.tree, self.options):
            yield diagnostic.line, diagnostic.col, diagnostic.message, type(self)


def diagnose(source: str, filename: str, tree: ast.Module | None, options: Options) -> list[Diagnostic]:
    """What the plugin reports for one file, before flake8's select/ignore and noqa. The flake8
    plugin and `flake8-staticfx check` both report through here, so their messages are the same."""
    if not might_have_roots(source):
        return []  # before importing the analysis (and astroid): other projects pay nothing
    directory = cache_dir(options)
    if directory is None:
        _settle_collector()
        return analysed(source, filename, tree, options)[1]
    results = ResultCache(directory)
    key = entry_key(source, filename, options)
    kept = results.load(key)
    if kept is not None:
        return kept
    _settle_collector()
    started = time.process_time()
    with recording() as reads:
        analysis, found = analysed(source, filename, tree, options)
    if analysis is not None and time.process_time() - started < options.file_time_budget:
        results.store(key, filename, reads, found)  # not an answer cut short by the CPU budget: the machine's load decides those
    return found


def analysed(source: str, filename: str, tree: ast.Module | None,
             options: Options) -> tuple[FileAnalysis | None, list[Diagnostic]]:
    """diagnose's diagnostics with the analysis they come from (None when it failed): the
    language server keeps it for hover and fixes. Leaves the garbage collector alone, which a
    long-lived process must not freeze."""
    if not might_have_roots(source):
        return None, []
    from ..analysis import analyze
    from .diagnostic import Diagnostic
    from .report import diagnostics

    try:
        analysis = analyze(source, filename, tree, options)
        return analysis, diagnostics(analysis, options.report_notices, tree)
    except Exception as exc:  # noqa: BLE001 - the last guard: flake8 must never see it
        if options.report_notices:
            from ..messages import notice
            from ..rules import RULES

            return None, [Diagnostic(1, 0, notice(RULES["SFX900"], filename, type(exc).__name__), "SFX900")]
        return None, []
