"""The files an analysis depended on: every file it read and every path whose existence it
tested, noted when looked up (not only when parsed: the caches per process let a later file
reuse an earlier file's parse, and it depends on that file all the same). The persistent cache
(front/cache.py) keys a file's answer on their stamps."""
from __future__ import annotations

import contextlib
import functools
import os
from typing import Callable, Iterable, Iterator, TypeVar

T = TypeVar("T")

# One set per recording in progress, innermost last; nothing is noted when none is.
_RECORDING: list[set[str]] = []


def note(path: str) -> None:
    """The analysis depends on what is (or is not) at `path`: a file's text, a directory's
    entries, a candidate module's existence."""
    if _RECORDING:
        _RECORDING[-1].add(path)


def note_all(paths: Iterable[str]) -> None:
    if _RECORDING:
        _RECORDING[-1].update(paths)


@contextlib.contextmanager
def recording() -> Iterator[set[str]]:
    """Collect the paths noted inside; they count for an enclosing recording too."""
    paths: set[str] = set()
    _RECORDING.append(paths)
    try:
        yield paths
    finally:
        _RECORDING.pop()
        note_all(paths)


def remembered(maxsize: int) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """functools.lru_cache that notes again, on each hit, the paths the first call noted."""
    def decorate(function: Callable[..., T]) -> Callable[..., T]:
        @functools.lru_cache(maxsize=maxsize)
        def computed(*args: object) -> tuple[T, frozenset[str]]:
            with recording() as paths:
                value = function(*args)
            return value, frozenset(paths)

        @functools.wraps(function)
        def cached(*args: object) -> T:
            value, paths = computed(*args)
            note_all(paths)
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
