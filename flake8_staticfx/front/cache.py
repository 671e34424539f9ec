"""A file's diagnostics kept between runs, as ruff keeps its results: a file unchanged, under the
same linter, settings and environment, whose analysis read the same files unchanged, gets the
diagnostics its last analysis gave without being analysed again.

An entry is found by the hash of what is known before the analysis (the file's text and path,
the linter's own files, the Options record, the interpreter, the working directory, $VIRTUAL_ENV
and sys.path, from which the libraries and the torch release are found), and names the paths the
analysis depended on (discover/reads.py), each with its stamp (mtime_ns, size) and the digest of
its content when it ran: an entry is used only while every one of them holds. Stamps first: a
warm run stats the hundreds of library files a model file reaches instead of reading them all
again; an edit changes the mtime (nanoseconds) or the size, and replacing a file changes its
mtime. A path whose stamp moved is compared by content, as mypy does: a fresh checkout (a lint
gate's CI run restoring the cache directory) or a reinstalled environment gives every file a new
mtime and the same bytes. The linter's own files are compared by content for the same reason.

The set every file of a project depends on alike (the files its compile index read: 280 of the
290 paths of an entry over tests/cases) is kept once, as a record named by the digest of its
stamps, which the entries name: writing those stamps into each entry cost a cold run more than
the cache saved it, and a warm run checks them once per process instead of once per file. The
paths a file read itself are kept the same way, a set named by its digest, since the files of a
directory mostly read the same ones, but checked each time an entry names them.

Entries and shared sets are records of front/packs.py: lines appended to one file per process,
which flake8's --jobs workers and concurrent runs never see half of; a record that cannot be
read or does not have the expected form is a miss. The directory is kept under MAX_CACHE_BYTES,
the packs least recently used going first.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import sys
from .. import __version__
from ..config import Options
from ..discover.reads import Reads, content_digest, stamp
from .diagnostic import Diagnostic
from .packs import Packs

CACHE_DIR_ENV = "FLAKE8_STATICFX_CACHE_DIR"
NO_CACHE_ENV = "FLAKE8_STATICFX_NO_CACHE"  # any value but "" or "0" turns the cache off
MAX_CACHE_BYTES = 256 * 1024 * 1024
FORMAT = 5  # the entries' layout: a change makes every older entry a miss
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
    """The linter's version and the digest of its own files (an editable install changes
    without a new version; a reinstall gives them new mtimes), read once per process."""
    global _linter_stamp  # noqa: PLW0603 - one linter per process
    if _linter_stamp is None:
        package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        contents = []
        for directory, subdirs, files in os.walk(package):
            subdirs[:] = sorted(d for d in subdirs if d != "__pycache__")
            contents.extend((os.path.relpath(os.path.join(directory, name), package),
                             content_digest(os.path.join(directory, name)))
                            for name in sorted(files) if not name.endswith(".pyc"))
        _linter_stamp = f"{__version__} {hashlib.sha256(repr(contents).encode()).hexdigest()}"
    return _linter_stamp


def entry_key(source: str, path: str, options: Options) -> str:
    """The hash of everything known about the file's answer before it is analysed: the run's
    key, the path as given and made absolute, then the text, in one hash (a path holds no NUL,
    so the fields cannot run into each other)."""
    cwd = os.getcwd()
    run = _run_key(options, linter_stamp(), cwd, os.environ.get("VIRTUAL_ENV", ""), tuple(sys.path))
    known = hashlib.sha256("\0".join((run, path, os.path.normpath(os.path.join(cwd, path)), "")).encode("utf-8", "surrogatepass"))
    known.update(source.encode("utf-8", "surrogatepass"))
    return known.hexdigest()


@functools.lru_cache(maxsize=8)
def _run_key(options: Options, linter: str, cwd: str, virtual_env: str, path: tuple[str, ...]) -> str:
    """The hash of what the files of a run share, taken once per run: encoding the settings and
    sys.path for each file was two thirds of the key's time."""
    settings = sorted((name, value) for name, value in dataclasses.asdict(options).items() if name not in NOT_ANSWERS)
    known = [FORMAT, linter, sys.version, cwd, virtual_env, path, settings]
    return hashlib.sha256(json.dumps(known, default=list).encode()).hexdigest()


class ResultCache:
    """The entries under one directory."""

    def __init__(self, directory: str):
        self.directory = directory
        self.packs = _packs(directory)

    def load(self, key: str) -> list[Diagnostic] | None:
        """The diagnostics kept under `key`, if every file they depended on is as it was."""
        entry = self.packs.find(key)
        try:
            if entry is None or entry["key"] != key:
                return None
            if not all(self._shared_unchanged(str(digest)) for digest in entry["shared"]):
                return None
            own = self._read_set(str(entry["read_set"]))
            if own is None or not _unchanged(own):
                return None
            return [Diagnostic(int(d["line"]), int(d["col"]), str(d["message"]), str(d["code"]),
                               tuple(str(gb) for gb in d["gb_ids"]),
                               None if d["condition"] is None else str(d["condition"]),
                               None if d["waits_on"] is None else int(d["waits_on"]))
                    for d in entry["diagnostics"]]
        except (ValueError, KeyError, TypeError):
            return None  # corrupt or of another form: a miss

    def _shared_unchanged(self, digest: str) -> bool:
        """Does every path of the shared set kept under `digest` still have its stamp? Looked at
        once per process, as the compile index it comes from is built once per process."""
        if digest not in _SHARED_UNCHANGED:
            stamps = self._read_set(digest)
            if stamps is None or not _unchanged(stamps):
                return False
            _SHARED_UNCHANGED.add(digest)
        return True

    def _read_set(self, digest: str) -> list | None:
        """The stamps of the set of paths kept under `digest`, None when there is no such
        record or it does not hold what its digest names; decoded once per process."""
        if digest not in _READ_SETS:
            record = self.packs.find(digest)
            try:
                stamps = None if record is None else record["reads"]
                if stamps is None or _digest(stamps) != digest:
                    return None
            except (ValueError, KeyError, TypeError):
                return None
            _READ_SETS[digest] = stamps
        return _READ_SETS[digest]

    def store(self, key: str, path: str, reads: Reads, diagnostics: list[Diagnostic]) -> None:
        """Keep `diagnostics`, the answer for the file at `path`, under `key` with the stamps of
        `reads` as they are now. The stamps are taken after the analysis: a file edited while it
        ran gives a stamp its answer does not match only if edited again, which the mtime shows.
        Each set of stamps is written once per process, as a record of its own, which the
        entries name by its digest: the shared sets of the compile index, and the paths the
        file read itself (the files of one directory read the same ones: 106 sets for 372
        entries over tests/cases, and encoding them in each entry was half of a cold run's
        writing)."""
        shared = sorted(self._store_set(paths) for paths in reads.shared)
        self.packs.append({"key": key, "file": os.path.abspath(path), "shared": shared,
                           "read_set": self._store_set(frozenset(reads.paths)),
                           "diagnostics": [{"line": d.line, "col": d.col, "message": d.message, "code": d.code,
                                            "gb_ids": list(d.gb_ids), "condition": d.condition,
                                            "waits_on": d.waits_on}
                                           for d in diagnostics]})

    def _store_set(self, paths: frozenset[str]) -> str:
        written = (self.directory, paths)
        if written not in _SETS_STORED:
            # encoded once, for both the digest and the record: the same bytes json.dumps of
            # {"key": digest, "reads": kept} gives
            encoded = json.dumps(sorted(_kept(path) for path in paths))
            digest = _SETS_STORED[written] = hashlib.sha256(encoded.encode()).hexdigest()
            self.packs.append_line(digest, f'{{"key": "{digest}", "reads": {encoded}}}'.encode("ascii"))
        return _SETS_STORED[written]


def _unchanged(kept: list) -> bool:
    """Does every path still have the stamp it was kept with, or else the same content?"""
    for path, kept_stamp, kept_content in kept:
        now = stamp(path)
        if (list(now) if now is not None else None) == kept_stamp:
            continue
        if now is None or kept_stamp is None or _content_now(path, now) != kept_content:
            return False
    return True


def _digest(kept: list) -> str:
    return hashlib.sha256(json.dumps(kept).encode()).hexdigest()


# The records of each cache directory, as this process has read and written them.
_PACKS: dict[str, Packs] = {}


def _packs(directory: str) -> Packs:
    if directory not in _PACKS:
        _PACKS[directory] = Packs(directory, MAX_CACHE_BYTES, _superseded)
    return _PACKS[directory]


def _superseded(records: list[dict]) -> set[str]:
    """Of the records, newest first, those a compaction drops: the entries of a file a newer
    entry answers for (the file edited since, or linted under other settings: a miss then, a
    new entry), and the sets of stamps no entry kept names. Without it every edit of a file would
    leave its older entry in the packs each process reads."""
    files: set[str] = set()
    named: set[str] = set()
    dropped: set[str] = set()
    for record in records:
        if "diagnostics" not in record:
            continue
        if str(record.get("file")) in files:
            dropped.add(str(record["key"]))
            continue
        files.add(str(record.get("file")))
        if isinstance(record.get("shared"), list):
            named.update(str(digest) for digest in record["shared"])
        named.add(str(record.get("read_set")))
    dropped.update(str(record["key"]) for record in records
                   if "diagnostics" not in record and str(record["key"]) not in named)
    return dropped


# The stamps and content digests stored, taken once per process: every file of a project
# depends on the same modules and compile index (340 paths each over tests/cases), and statting
# them again for each cost a cold run a fifth of its time. A record older than the file it names
# only makes the next run analyse again.
_KEPT: dict[str, list] = {}
# The content of a path whose stamp moved, by path and its stamp now: hashed once per process.
_CONTENT_NOW: dict[tuple[str, tuple[int, int]], str | None] = {}
# The sets of stamps this process wrote, by directory, with their digests; those it read, by
# digest; the digests of the shared sets it found unchanged (an entry's own set is looked at
# each time it is used).
_SETS_STORED: dict[tuple[str, frozenset[str]], str] = {}
_READ_SETS: dict[str, list] = {}
_SHARED_UNCHANGED: set[str] = set()


def _kept(path: str) -> list:
    """[path, stamp, content digest], taken once per process."""
    if path not in _KEPT:
        now = stamp(path)
        _KEPT[path] = [path, now, None if now is None else _content_now(path, now)]
    return _KEPT[path]


def _content_now(path: str, now: tuple[int, int]) -> str | None:
    if (path, now) not in _CONTENT_NOW:
        _CONTENT_NOW[path, now] = content_digest(path)
    return _CONTENT_NOW[path, now]
