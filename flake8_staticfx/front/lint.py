"""One file linted the way flake8 lints it with this plugin, without flake8.

The diagnostics come from plugin.diagnose, the function the flake8 plugin reports through
(analysis.analyze + report.flake8_diagnostics), so the messages are the plugin's own. Around
it, what flake8 does: read the file (its coding cookie, else UTF-8: a file that does not decode
is E902, where flake8 would read it as latin-1), skip a
file with `# flake8: noqa`, parse it (a SyntaxError is E999 at flake8's line and column),
apply select/ignore and `# noqa`, and print 1-based columns.
"""
from __future__ import annotations

import ast
import io
import os
import sys
import tokenize
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..config import Options
from .plugin import diagnose
from ..rules import RULES
from .selection import Selection, file_is_skipped, noqa_lines, silenced
from .sources import UnusableInput, decode, syntax_error_position

if TYPE_CHECKING:
    from .diagnostic import Diagnostic

# Not one of ours: a file that does not parse (flake8 reports it as E999 too, and E902 for a
# file it cannot read). check always reports them, whatever select/ignore say: a file that
# cannot be linted must not pass.
SYNTAX_ERROR = "E999"
READ_ERROR = "E902"
SYNTAX_ERROR_URL = "https://docs.python.org/3/library/exceptions.html#SyntaxError"


@dataclass(frozen=True)
class Finding:
    path: str  # as given or as found under a given directory, like flake8's output
    line: int  # 1-based
    col: int  # 1-based, as flake8 prints it
    code: str
    message: str  # the text after the code, exactly as flake8 prints it
    gb_ids: tuple[str, ...] = ()
    torch: str = ""  # the torch release the finding is for ("2.14"); "" for E999/E902
    condition: str = ""  # when the break happens ('when training'); "" however the model is run
    waits_on: int | None = None  # a to-do item: the line of the earlier break it waits on

    @property
    def url(self) -> str:
        rule = RULES.get(self.code)
        if rule is not None:
            return rule.docs_url
        return SYNTAX_ERROR_URL if self.code == SYNTAX_ERROR else ""

    @property
    def is_error(self) -> bool:
        """The file could not be linted at all (not a graph break)."""
        return self.code in (SYNTAX_ERROR, READ_ERROR)

    def text(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.code} {self.message}"


def read_lines(path: str) -> list[str]:
    """The file's lines as flake8's FileProcessor reads them (universal newlines, no BOM), except
    that a file Python cannot decode is an UnusableInput, where flake8 reads it as latin-1 and
    passes it."""
    with open(path, "rb") as handle:
        data = handle.read()
    return io.StringIO(decode(data, path), newline=None).readlines()


def read_stdin_lines() -> list[str]:
    """flake8's utils.stdin_get_lines: the encoding from a coding cookie, else UTF-8."""
    data = sys.stdin.buffer.read()
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (LookupError, SyntaxError, UnicodeError):
        text = data.decode("utf-8", errors="replace")
    return list(io.StringIO(text))


def lint_file(path: str, options: Options, selection: Selection, disable_noqa: bool = False,
              lines: list[str] | None = None) -> list[Finding]:
    """The findings for `path`, or for `lines` reported as `path` (stdin: the editor's buffer)."""
    if lines is None:
        try:
            lines = read_lines(path)
        except OSError as exc:
            return [Finding(path, 1, 1, READ_ERROR, f"{type(exc).__name__}: {exc}")]
        except UnusableInput as exc:
            return [Finding(path, exc.line or 1, exc.col or 1, READ_ERROR, exc.message)]
    if not disable_noqa and file_is_skipped(lines):
        return []
    source = "".join(lines)
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as exc:  # ValueError: a null byte, before Python 3.12
        line, col = syntax_error_position(exc)
        message = exc.args[0] if exc.args else str(exc)
        return [Finding(path, line, col + 1, SYNTAX_ERROR, f"{type(exc).__name__}: {message}")]
    return reported(path, lines, diagnose(source, path, tree, options), selection, options, disable_noqa)


def reported(path: str, lines: list[str], diagnosed: list[Diagnostic], selection: Selection, options: Options,
             disable_noqa: bool = False) -> list[Finding]:
    """What flake8 shows of plugin.diagnose's diagnostics of `lines`: the selected codes, on
    lines without a `# noqa` silencing them."""
    if not any("noqa" in line.lower() for line in lines):
        disable_noqa = True  # no line silences anything: spare tokenizing the file (an editor's every change)
    found = []
    noqa = None
    torch = ""
    for diagnostic in diagnosed:
        line, code = diagnostic.line, diagnostic.code
        if not selection.reports(code):
            continue
        if not disable_noqa:
            if noqa is None:
                noqa = noqa_lines(lines)
            physical = noqa.get(line)
            if physical is None and 0 < line <= len(lines):
                physical = lines[line - 1]  # flake8 falls back to the physical line (linecache)
            if silenced(code, physical):
                continue
        if not torch:
            from ..analysis import torch_for  # only once there is something to report

            torch = torch_for(path, options).minor
        found.append(Finding(path, line, (diagnostic.col or 0) + 1, code, diagnostic.text, diagnostic.gb_ids, torch,
                             diagnostic.condition or "", diagnostic.waits_on))
    return found


def display_path(path: str) -> str:
    """A path for tools that want it relative (SARIF, GitHub): relative to the current
    directory when inside it, with forward slashes."""
    if os.path.isabs(path):
        relative = os.path.relpath(path)
        if not relative.startswith(".."):
            path = relative
    path = path.replace(os.sep, "/")
    while path.startswith("./"):
        path = path[2:]
    return path
