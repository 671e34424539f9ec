"""`flake8-staticfx check`: the lint without flake8 (for ruff users, CI and pre-commit).

Same engine as the plugin (lint.py calls plugin.diagnose), same options (config.OPTION_SPECS),
same configuration (settings.py reads the [flake8] section flake8 would read; command-line
flags override it), same select/ignore and `# noqa` (selection.py), same output as flake8's
default format. Exit status: 0 clean, 1 findings (a file that does not parse is one, E999),
2 a usage error, a bad configuration or a path that does not exist.
"""
from __future__ import annotations

import argparse
import fnmatch
import os
import sys
import time
from collections import Counter
from typing import Callable, Iterable, Iterator

from ..config import Options, options_from, split_list
from .formats import FORMATS, statistics
from .lint import Finding, lint_file, read_stdin_lines
from .selection import Selection, parse_per_file_ignores, unknown_codes
from .sources import UnusableInput, read_python
from .settings import (CODE_KEYS, DEFAULT_EXCLUDE, DEFAULT_FILENAME, PATH_KEYS, ConfigError, add_analysis_arguments,
                       analysis_values, load, normalize_path)

HELP = "lint files and directories (the flake8 plugin's diagnostics, without flake8)"
OUTPUT_FORMATS = ("full", "concise", "json", "sarif", "github")  # ruff's names
FORMAT_NAMES = ("text", "json", "sarif", "github")  # flake8's, `--format`
PROGRESS_AFTER = 0.5  # seconds before a progress line appears (a terminal only)
PROGRESS_EVERY = 0.1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="files and directories (default: .); - reads one file from stdin")
    parser.add_argument("--stdin-display-name", metavar="NAME", default="stdin",
                        help="the path of the file read from stdin: reported, and where its project is found")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--output-format", choices=OUTPUT_FORMATS,
                        help="concise (the default): flake8's path:line:col: CODE message; full: with the source "
                             "line and the GB id's page; json: one object per finding; sarif: SARIF 2.1.0; "
                             "github: GitHub Actions annotations")
    output.add_argument("--format", choices=FORMAT_NAMES, help="the same, by flake8's names (text is concise)")
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even when something was found")
    parser.add_argument("--fix", action="store_true",
                        help="rewrite the breaks found that `flake8-staticfx fix` can, then report the rest")
    parser.add_argument("--diff", action="store_true",
                        help="print the rewrites --fix would make as a unified diff, change nothing "
                             "(exit 1 when there is one)")
    parser.add_argument("--statistics", action="store_true",
                        help="count the findings per code (after the findings; on stderr unless --format text)")
    parser.add_argument("--with-importers", action="store_true",
                        help="also lint the project's files that import the given files, directly or not "
                             "(for pre-commit, which passes only the changed files)")
    parser.add_argument("--no-progress", action="store_true", help="no progress line on a terminal's stderr")
    parser.add_argument("--config", metavar="FILE", help="read [flake8] from FILE instead of searching for "
                                                         "setup.cfg, tox.ini or .flake8")
    parser.add_argument("--isolated", action="store_true", help="ignore every configuration file")
    parser.add_argument("--disable-noqa", action="store_true", help="report lines with `# noqa` too")
    flake8_keys = parser.add_argument_group("flake8's selection options (also read from [flake8])")
    for key, what in (("select", "codes (prefixes) to report"), ("ignore", "codes (prefixes) to leave out"),
                      ("extend-select", "codes to report, added to --select"),
                      ("extend-ignore", "codes to leave out, added to --ignore"),
                      ("exclude", "files or directories to skip (default: %s)" % ",".join(DEFAULT_EXCLUDE)),
                      ("extend-exclude", "more files or directories to skip"),
                      ("filename", "file name patterns linted in directories (default: *.py)")):
        flake8_keys.add_argument(f"--{key}", metavar="LIST", help=what)
    flake8_keys.add_argument("--per-file-ignores", metavar="MAPPING",
                             help="codes to leave out per file pattern: `legacy/*.py:SFX101 tests/*:SFX`")
    add_analysis_arguments(parser)


def _values(args: argparse.Namespace) -> dict:
    """[flake8] values overridden by the command line's, keyed by argparse dest."""
    values = analysis_values(args, load(args.config, args.isolated))
    if args.per_file_ignores is not None:
        values["per_file_ignores"] = args.per_file_ignores
    for key in ("select", "ignore", "extend_select", "extend_ignore", "exclude", "extend_exclude", "filename"):
        given = getattr(args, key)
        if given is not None:
            items = list(split_list(given))
            if key.replace("_", "-") in CODE_KEYS and unknown_codes(items):
                raise ConfigError(f"--{key.replace('_', '-')}: unknown code {', '.join(unknown_codes(items))}")
            if key.replace("_", "-") in PATH_KEYS:
                items = [normalize_path(item, os.getcwd()) for item in items]
            values[key] = items
    return values


def _excluded(patterns: list[str]) -> Callable[[str], bool]:
    """flake8's utils.matches_filename: the base name or the absolute path matches a pattern."""
    def excluded(path: str) -> bool:
        if not patterns:
            return False
        base = os.path.basename(path)
        if base not in (".", "..") and any(fnmatch.fnmatch(base, p) for p in patterns):
            return True
        absolute = os.path.abspath(path)
        return any(fnmatch.fnmatch(absolute, p) for p in patterns)
    return excluded


def expand_paths(paths: list[str], exclude: list[str], filename: list[str]) -> Iterator[str]:
    """flake8's discover_files.expand_paths: explicit files always, walked files by pattern."""
    excluded = _excluded(exclude)
    for path in paths or ["."]:
        if excluded(path):
            continue
        if not os.path.isdir(path):
            yield path
            continue
        for root, subdirs, files in os.walk(path):
            subdirs[:] = [d for d in subdirs if not excluded(os.path.join(root, d))]
            for name in files:
                joined = os.path.join(root, name)
                if not excluded(joined) and (not filename or any(fnmatch.fnmatch(joined, p) for p in filename)):
                    yield joined


def _unique(paths: Iterable[str]) -> list[str]:
    seen, found = set(), []
    for path in paths:
        key = os.path.abspath(path)
        if key not in seen:
            seen.add(key)
            found.append(path)
    return found


def _relative(path: str) -> str:
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


class Progress:
    """`[12/130] path` on a terminal's stderr, rewritten in place, for runs longer than a moment."""

    def __init__(self, total: int, enabled: bool):
        self.total, self.enabled = total, enabled and total > 1
        self.started = self.last = time.monotonic()
        self.shown = False

    def update(self, done: int, path: str) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.started < PROGRESS_AFTER or now - self.last < PROGRESS_EVERY:
            return
        self.last, self.shown = now, True
        sys.stderr.write(f"\r\x1b[K[{done}/{self.total}] {path}"[:200])
        sys.stderr.flush()

    def close(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


class Selections:
    """The select/ignore decision for each file: flake8's default style guide, and one per
    per-file-ignores pattern (its codes added to extend-ignore); the longest matching pattern
    decides, as in flake8's StyleGuideManager."""

    def __init__(self, values: dict):
        select, ignore = values.get("select"), values.get("ignore")
        extend_select, extend_ignore = values.get("extend_select", ()), values.get("extend_ignore", ())
        self.default = Selection(select, ignore, extend_select, extend_ignore)
        self.per_file = []
        for pattern, codes in parse_per_file_ignores(values.get("per_file_ignores") or ""):
            selection = Selection(select, ignore, extend_select, [*extend_ignore, *codes])
            self.per_file.append((normalize_path(pattern, os.curdir), selection))

    def for_file(self, path: str) -> Selection:
        matching = [(pattern, selection) for pattern, selection in self.per_file if _excluded([pattern])(path)]
        return max(matching, key=lambda item: len(item[0]))[1] if matching else self.default


def lint_paths(files: list[str], options: Options, selections: Selections, disable_noqa: bool = False,
               progress: Progress | None = None, stdin_display_name: str = "stdin") -> list[Finding]:
    findings: list[Finding] = []
    for done, path in enumerate(files):
        if progress is not None:
            progress.update(done, path)
        if path == "-":
            name = stdin_display_name
            findings.extend(lint_file(name, options, selections.for_file(name), disable_noqa, read_stdin_lines()))
        else:
            findings.extend(lint_file(path, options, selections.for_file(path), disable_noqa))
    if progress is not None:
        progress.close()
    # flake8's order: by file name, then line and column
    return sorted(findings, key=lambda f: (f.path, f.line, f.col))


def run(args: argparse.Namespace) -> int:
    prog = "flake8-staticfx check"
    missing = [path for path in args.paths if path != "-" and not os.path.exists(path)]
    if missing:
        for path in missing:
            print(f"{prog}: error: {UnusableInput(path, 'no such file or directory')}", file=sys.stderr)
        return 2
    try:
        values = _values(args)
    except ConfigError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    options = options_from(values)
    if options.max_inline_depth < 0:
        print(f"{prog}: error: --staticfx-max-inline-depth must be 0 or more", file=sys.stderr)
        return 2
    try:
        selections = Selections(values)
    except ValueError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    exclude = [*values.get("exclude", DEFAULT_EXCLUDE), *values.get("extend_exclude", ())]
    files = []
    for path in args.paths or ["."]:
        found = list(expand_paths([path], exclude, values.get("filename", list(DEFAULT_FILENAME))))
        if not found and os.path.isdir(path):
            print(f"{prog}: error: {UnusableInput(path, 'no Python file to lint')}", file=sys.stderr)
            return 2
        files += found
    if args.with_importers:
        from ..discover.importers import importers_of

        excluded = _excluded(exclude)
        files += [_relative(path) for path in importers_of(files) if not excluded(path)]
    files = _unique(files)
    if (args.fix or args.diff) and "-" in files:
        print(f"{prog}: error: --fix and --diff rewrite files, not stdin", file=sys.stderr)
        return 2
    progress = Progress(len(files), not args.no_progress and sys.stderr.isatty())
    findings = lint_paths(files, options, selections, args.disable_noqa, progress, args.stdin_display_name)
    if args.diff:
        return 1 if fix_findings(findings, options, selections, args.disable_noqa, write=False) else 0
    if args.fix:
        fixed = fix_findings(findings, options, selections, args.disable_noqa, write=True)
        findings = [f for f in findings if f.path not in fixed] + lint_paths(
            list(fixed), options, selections, args.disable_noqa)
        findings.sort(key=lambda f: (f.path, f.line, f.col))
        print(f"fixed {sum(fixed.values())} break(s) in {len(fixed)} file(s); {len(findings)} left", file=sys.stderr)
    output_format = args.output_format or {"text": "concise"}.get(args.format, args.format) or "concise"
    sys.stdout.write(FORMATS[output_format](findings))
    if args.statistics:
        (sys.stdout if output_format in ("concise", "full") else sys.stderr).write(statistics(findings))
    sys.stdout.flush()
    return 1 if findings and not args.exit_zero else 0


def fix_findings(findings: list[Finding], options: Options, selections: Selections, disable_noqa: bool,
                 write: bool) -> dict[str, int]:
    """--fix (write) and --diff (print): `fix`'s rewrites of the codes each file reported, or of
    fewer: a code that `# noqa` silences somewhere in a file is not rewritten in it. Returns the
    number of breaks fixed in each file that changed."""
    from ..fix import fix_source  # only --fix and --diff need it; linting never imports fix

    codes: dict[str, set[str]] = {}
    for finding in findings:
        if not finding.is_error:
            codes.setdefault(finding.path, set()).add(finding.code)
    fixed = {}
    for path, reported in codes.items():
        source = read_python(path, newline="")
        if not disable_noqa and "noqa" in source:
            everything = lint_file(path, options, selections.for_file(path), disable_noqa=True)
            shown = Counter(f.code for f in findings if f.path == path)
            reported -= {code for code, n in Counter(f.code for f in everything).items() if n > shown[code]}
        if not reported:
            continue
        result = fix_source(source, path, options, tuple(sorted(reported)), display=path)
        if not result.changed:
            continue
        fixed[path] = sum(1 for outcome in result.outcomes if outcome.rewrite)
        if write:
            with open(path, "w", encoding="utf-8", newline="") as handle:
                handle.write(result.fixed)
        else:
            sys.stdout.write(result.diff())
    return fixed
