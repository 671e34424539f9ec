"""The files an analysis depended on: every file it read and every path whose existence it
tested, noted when looked up (not only when parsed: the caches per process let a later file
reuse an earlier file's parse, and it depends on that file all the same). The persistent cache
(front/cache.py) keys a file's answer on their stamps."""
from __future__ import annotations

import contextlib
import functools
import hashlib
import os
from dataclasses import dataclass, field
from typing import Callable, Iterator, TypeVar

T = TypeVar("T")


@dataclass
class Reads:
    """What an analysis depended on: paths noted one by one, and sets of paths noted whole
    (`note_shared`: the files a project's compile index read, the same for every file of the
    project), which the cache keeps once for all the entries that share them instead of in each."""

    paths: set[str] = field(default_factory=set)
    shared: set[frozenset[str]] = field(default_factory=set)


# One Reads per recording in progress, innermost last; nothing is noted when none is.
_RECORDING: list[Reads] = []


def note(path: str) -> None:
    """The analysis depends on what is (or is not) at `path`: a file's text, a directory's
    entries, a candidate module's existence."""
    if _RECORDING:
        _RECORDING[-1].paths.add(path)


def note_shared(paths: frozenset[str]) -> None:
    """The analysis depends on every path of a set that many analyses depend on as a whole."""
    if _RECORDING:
        _RECORDING[-1].shared.add(paths)


def note_reads(reads: Reads) -> None:
    """The analysis depends on what an earlier recording collected."""
    if _RECORDING:
        _RECORDING[-1].paths.update(reads.paths)
        _RECORDING[-1].shared.update(reads.shared)


@contextlib.contextmanager
def recording() -> Iterator[Reads]:
    """Collect the paths noted inside; they count for an enclosing recording too."""
    reads = Reads()
    _RECORDING.append(reads)
    try:
        yield reads
    finally:
        _RECORDING.pop()
        note_reads(reads)


def remembered(maxsize: int) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """functools.lru_cache that notes again, on each hit, the paths the first call noted."""
    def decorate(function: Callable[..., T]) -> Callable[..., T]:
        @functools.lru_cache(maxsize=maxsize)
        def computed(*args: object) -> tuple[T, Reads]:
            with recording() as reads:
                value = function(*args)
            return value, reads

        @functools.wraps(function)
        def cached(*args: object) -> T:
            value, reads = computed(*args)
            note_reads(reads)
            return value

        cached.cache_clear = computed.cache_clear  # type: ignore[attr-defined]
        return cached
    return decorate


Stamp = tuple[int, int]  # (st_mtime_ns, st_size); a directory's mtime moves when an entry comes or goes


def stamp(path: str) -> Stamp | None:
    """What the cache compares: None for a path where nothing is."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_mtime_ns, st.st_size


def content_digest(path: str) -> str | None:
    """What the cache compares when a stamp moved: a file's bytes, a directory's entry names (a
    fresh checkout or a restored environment gives every file a new mtime and the same
    content); None where nothing is."""
    try:
        if os.path.isdir(path):
            held = "\0".join(sorted(os.listdir(path))).encode("utf-8", "surrogateescape")
        else:
            with open(path, "rb") as handle:
                held = handle.read()
    except (OSError, ValueError):
        return None
    return hashlib.sha256(held).hexdigest()
