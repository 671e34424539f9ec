"""A file's diagnostics kept between runs, as ruff keeps its results: a file unchanged, under the
same linter, settings and environment, whose analysis read the same files unchanged, gets the
diagnostics its last analysis gave without being analysed again.

An entry is found by the hash of what is known before the analysis (the file's text and path,
the linter's own files, the Options record, the interpreter, the working directory, $VIRTUAL_ENV
and sys.path, from which the libraries and the torch release are found), and holds the paths the
analysis depended on (discover/reads.py) with their stamps (mtime_ns, size) when it ran: an
entry is used only while every one of them holds. Stamps, not content hashes: a warm run stats
the hundreds of library files a model file reaches instead of reading them all again; an edit
changes the mtime (nanoseconds) or the size, and replacing a file changes its mtime.

Entries are JSON files written whole (a temporary file, then os.replace), so that flake8's
--jobs workers and concurrent runs never see half an entry; one that cannot be read or does not
have the expected form is a miss. The directory is kept under MAX_CACHE_BYTES, the entries least
recently used going first.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sys
import tempfile
from .. import __version__
from ..config import Options
from ..discover.reads import stamp
from .diagnostic import Diagnostic

CACHE_DIR_ENV = "FLAKE8_STATICFX_CACHE_DIR"
NO_CACHE_ENV = "FLAKE8_STATICFX_NO_CACHE"  # any value but "" or "0" turns the cache off
MAX_CACHE_BYTES = 256 * 1024 * 1024
FORMAT = 1  # the entries' layout: a change makes every older entry a miss
# Options fields that say where answers are kept, not what they are.
NOT_ANSWERS = frozenset({"cache_dir", "no_cache"})


def cache_dir(options: Options) -> str | None:
    """Where entries are kept: --staticfx-cache-dir, $FLAKE8_STATICFX_CACHE_DIR, else the user's
    cache directory; None when --staticfx-no-cache or $FLAKE8_STATICFX_NO_CACHE turns it off."""
    if options.no_cache or os.environ.get(NO_CACHE_ENV, "") not in ("", "0"):
        return None
    if options.cache_dir:
        return os.path.abspath(options.cache_dir)
    if os.environ.get(CACHE_DIR_ENV):
        return os.path.abspath(os.environ[CACHE_DIR_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "flake8-staticfx")


_linter_stamp: str | None = None


def linter_stamp() -> str:
    """The linter's version and the stamps of its own files (an editable install changes
    without a new version), read once per process."""
    global _linter_stamp  # noqa: PLW0603 - one linter per process
    if _linter_stamp is None:
        package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        stamps = []
        for directory, subdirs, files in os.walk(package):
            subdirs[:] = sorted(d for d in subdirs if d != "__pycache__")
            stamps.extend((os.path.relpath(os.path.join(directory, name), package), stamp(os.path.join(directory, name)))
                          for name in sorted(files) if not name.endswith(".pyc"))
        _linter_stamp = f"{__version__} {hashlib.sha256(repr(stamps).encode()).hexdigest()}"
    return _linter_stamp


def entry_key(source: str, path: str, options: Options) -> str:
    """The hash of everything known about the file's answer before it is analysed."""
    settings = {name: value for name, value in dataclasses.asdict(options).items() if name not in NOT_ANSWERS}
    known = [FORMAT, linter_stamp(), sys.version, path, os.path.abspath(path), os.getcwd(),
             os.environ.get("VIRTUAL_ENV", ""), sys.path, sorted(settings.items()),
             hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()]
    return hashlib.sha256(json.dumps(known, default=list).encode()).hexdigest()


class ResultCache:
    """The entries under one directory."""

    def __init__(self, directory: str):
        self.directory = directory

    def _entry_path(self, key: str) -> str:
        return os.path.join(self.directory, key[:2], key + ".json")

    def load(self, key: str) -> list[Diagnostic] | None:
        """The diagnostics kept under `key`, if every file they depended on is as it was."""
        entry_path = self._entry_path(key)
        try:
            with open(entry_path, encoding="utf-8") as handle:
                entry = json.load(handle)
            if entry["key"] != key:
                return None
            for path, kept in entry["reads"]:
                now = stamp(path)
                if (list(now) if now is not None else None) != kept:
                    return None
            found = [Diagnostic(int(d["line"]), int(d["col"]), str(d["message"]), str(d["code"]),
                                tuple(str(gb) for gb in d["gb_ids"]),
                                None if d["condition"] is None else str(d["condition"]))
                     for d in entry["diagnostics"]]
        except (OSError, ValueError, KeyError, TypeError):
            return None  # absent, half-removed by an eviction, corrupt or of another form: a miss
        try:
            os.utime(entry_path)  # recently used: the last to be evicted
        except OSError:
            pass
        return found

    def store(self, key: str, reads: set[str], diagnostics: list[Diagnostic]) -> None:
        """Keep `diagnostics` under `key` with the stamps of `reads` as they are now. The stamps
        are taken after the analysis: a file edited while it ran gives a stamp its answer does
        not match only if edited again, which the mtime shows."""
        entry = {"key": key, "reads": sorted([path, _stamp_once(path)] for path in reads),
                 "diagnostics": [{"line": d.line, "col": d.col, "message": d.message, "code": d.code,
                                  "gb_ids": list(d.gb_ids), "condition": d.condition} for d in diagnostics]}
        entry_path = self._entry_path(key)
        try:
            os.makedirs(os.path.dirname(entry_path), exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=os.path.dirname(entry_path), suffix=".tmp")
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as out:
                    out.write(json.dumps(entry))  # dumps encodes in C; dump to a file, chunk by chunk in Python (5x slower)
                os.replace(temporary, entry_path)
            except BaseException:
                os.unlink(temporary)
                raise
        except OSError:
            return  # a read-only or full disk: the answer stands, it is only not kept
        if self.directory not in _BOUNDED:  # once per process and directory: a run adds only its own files
            _BOUNDED.add(self.directory)
            evict(self.directory, MAX_CACHE_BYTES)


_BOUNDED: set[str] = set()
# The stamps stored, taken once per process: every file of a project depends on the same
# modules and compile index (340 paths each over tests/cases), and statting them again for each
# cost a cold run a fifth of its time. A stamp older than the file it names only makes the
# next run analyse again.
_STORED_STAMPS: dict[str, tuple[int, int] | None] = {}


def _stamp_once(path: str) -> tuple[int, int] | None:
    if path not in _STORED_STAMPS:
        _STORED_STAMPS[path] = stamp(path)
    return _STORED_STAMPS[path]


def evict(directory: str, max_bytes: int) -> None:
    """Remove entries, least recently used first, until those left hold at most `max_bytes`."""
    entries = []
    for shard in _scandir(directory):
        for entry in _scandir(shard.path):
            try:
                info = entry.stat()
            except OSError:
                continue
            entries.append((info.st_mtime_ns, info.st_size, entry.path))
    total = sum(size for _, size, _ in entries)
    for _, size, path in sorted(entries):
        if total <= max_bytes:
            break
        try:
            os.unlink(path)
        except OSError:
            continue  # another process evicted it first
        total -= size


def _scandir(directory: str) -> list[os.DirEntry]:
    try:
        return list(os.scandir(directory))
    except OSError:
        return []
