"""The paths a command is given and the Python files they hold, read as Python reads them.

Bad input is never passed over in silence: a path that does not exist, a directory without a
Python file, a file that does not decode or does not parse is an UnusableInput naming the file
(and the line), which the command prints on stderr before it exits with status 2.
"""
from __future__ import annotations

import ast
import io
import os
import tokenize
from dataclasses import dataclass


@dataclass(eq=False)
class UnusableInput(Exception):
    """A path or file a command cannot work on, and why; printed as `path:line:col: message`."""

    path: str
    message: str
    line: int | None = None
    col: int | None = None  # 1-based

    def __str__(self) -> str:
        place = ":".join(str(part) for part in (self.path, self.line, self.col) if part is not None)
        return f"{place}: {self.message}"


def python_files(paths: list[str]) -> list[str]:
    """Each path that is a file, and the `.py` files under each directory (hidden directories
    left out), in order."""
    found = []
    for path in paths:
        if not os.path.exists(path):
            raise UnusableInput(path, "no such file or directory")
        if not os.path.isdir(path):
            found.append(path)
            continue
        under = []
        for directory, subdirs, files in os.walk(path):
            subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
            under.extend(os.path.join(directory, f) for f in sorted(files) if f.endswith(".py"))
        if not under:
            raise UnusableInput(path, "no Python file to lint")
        found.extend(under)
    return found


def decode(data: bytes, path: str) -> str:
    """The text of a Python file: in the encoding its coding cookie names, else UTF-8 (a BOM
    dropped), with the newlines as written."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # an unknown encoding, or a cookie contradicting the BOM
        raise UnusableInput(path, f"cannot decode: {exc}") from None
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        raise UnusableInput(path, f"cannot decode as {encoding}: {exc.reason} (byte {data[exc.start]:#04x})",
                            data.count(b"\n", 0, exc.start) + 1, exc.start - line_start + 1) from None


def syntax_error_position(exc: Exception) -> tuple[int, int]:
    """Where flake8 reports a SyntaxError (FileChecker._extract_syntax_information, Python
    3.10+): its line, and its offset as a 0-based column."""
    if len(exc.args) > 1 and exc.args[1] and len(exc.args[1]) > 2:
        return exc.args[1][1] or 1, exc.args[1][2] or 0
    return 1, 0


def parse_error(text: str, path: str) -> UnusableInput | None:
    """Why `text` does not parse, placed as flake8 places E999; None when it parses."""
    try:
        ast.parse(text)
    except (SyntaxError, ValueError) as exc:  # ValueError: a null byte, before Python 3.12
        line, col = syntax_error_position(exc)
        message = exc.args[0] if exc.args else str(exc)
        return UnusableInput(path, f"{type(exc).__name__}: {message}", line, col + 1)
    return None


def read_python(path: str, newline: str | None = None) -> str:
    """The text of the Python file `path`, decoded and parsed; `newline` as open() takes it
    (None: every line ends with \\n; "": as written)."""
    if os.path.isdir(path):
        raise UnusableInput(path, "is a directory, not a file")
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise UnusableInput(path, "no such file or directory" if isinstance(exc, FileNotFoundError)
                            else f"cannot read: {exc.strerror or exc}") from None
    text = decode(data, path)
    if newline is None:
        text = io.StringIO(text, newline=None).read()
    error = parse_error(text, path)
    if error is not None:
        raise error
    return text
