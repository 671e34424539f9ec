"""The cache's records (front/cache.py) kept in packs: append-only files of one JSON document a
line, one pack per process, instead of one file per record. Creating a file, even with no
temporary and no directory to make, cost about 0.18 ms a record, more than a cold run's entry
was worth on small files; appending a line costs one write.

Each record is written by a single os.write, as soon as it is made, on a file opened with
O_APPEND that only its process writes: flake8's --jobs workers, which leave by os._exit, have
nothing left to flush, and a line is never interleaved with another. A process killed in the
middle of a write leaves a line that is not a whole JSON document: it is ignored, as is a line
of any other form. Every record starts with its key (`{"key": "<64 hex digits>"`), so that
reading a pack indexes its lines without decoding them; a line is decoded only when its key is
asked for.

A process reads what the packs hold when it first looks for a record, and adds its own records
as it writes them; what other processes append later is not looked for (each file of a run goes
to one worker, and re-reading the directory at every miss cost a cold run more than its writes).
When a run finds more than COMPACT_AT packs it writes the newest record of each key into one new
pack (a temporary file, then os.replace), less the records the cache says newer ones supersede,
and removes those it merged: a
record appended meanwhile to a removed pack is lost, a miss for the next run, never a wrong
answer. A pack is touched when one of its records is used, so that eviction (evict, oldest
first) takes the packs no run has used for longest.
"""
from __future__ import annotations

import json
import os
import time
from typing import Callable

PACKS = "packs"
SUFFIX = ".jsonl"
COMPACT_AT = 32
RECORD_START = b'{"key": "'
KEY_END = len(RECORD_START) + 64


class Packs:
    """The records under one cache directory, as this process has read and written them."""

    def __init__(self, directory: str, max_bytes: int, superseded: Callable[[list[dict]], set[str]]):
        self.directory = os.path.join(directory, PACKS)
        self.max_bytes = max_bytes
        self.superseded = superseded  # the keys compaction drops, of the records given newest first
        self.lines: dict[str, bytes] = {}  # each key's newest line
        self.pack_of: dict[str, str] = {}  # the pack each line was read from
        self.read: dict[str, tuple[int, int]] = {}  # per pack: bytes read, end of its last whole line
        self.touched: set[str] = set()
        self.looked = False  # refresh has run
        self.writer: tuple[int, str | None, int | None] | None = None  # pid, own pack, its descriptor

    def find(self, key: str) -> dict | None:
        """The document kept under `key`, None when there is none or it is not a JSON object."""
        if not self.looked:
            self.refresh()
        line = self.lines.get(key)
        if line is None:
            return None
        try:
            document = json.loads(line)
        except ValueError:
            return None
        if not isinstance(document, dict):
            return None
        self._touch(self.pack_of[key])
        return document

    def refresh(self) -> None:
        """Index the lines appended since this process last looked: new packs, grown ones (the
        oldest first, so that a key's newest line wins)."""
        self.looked = True
        packs = []
        for entry in _scandir(self.directory):
            try:
                info = entry.stat()
            except OSError:
                continue
            if entry.name.endswith(SUFFIX) and self.read.get(entry.name, (0, 0))[0] != info.st_size:
                packs.append((info.st_mtime_ns, entry.name))
        for _, name in sorted(packs):
            _, offset = self.read.get(name, (0, 0))
            try:
                with open(os.path.join(self.directory, name), "rb") as handle:
                    handle.seek(offset)
                    data = handle.read()
            except OSError:
                continue
            whole = data.rfind(b"\n") + 1  # a line still being written is read next time
            self._index(name, data[:whole])
            self.read[name] = (offset + len(data), offset + whole)

    def _index(self, name: str, data: bytes) -> None:
        for line in data.splitlines():
            if line.startswith(RECORD_START) and line[KEY_END:KEY_END + 1] == b'"':
                key = line[len(RECORD_START):KEY_END].decode("ascii", "replace")
                self.lines[key] = line
                self.pack_of[key] = name

    def append(self, document: dict) -> None:
        """Keep `document` (its first field "key") as a line of this process's pack. On a
        read-only or full disk the answer stands, it is only not kept."""
        self.append_line(document["key"], json.dumps(document).encode("ascii"))  # ASCII, one line: json escapes the rest

    def append_line(self, key: str, encoded: bytes) -> None:
        """Keep `encoded`, a JSON object on one ASCII line whose first field is "key": `key`, as
        append does (for a caller that has encoded the record already)."""
        line = encoded + b"\n"
        name, descriptor = self._own_pack()
        if descriptor is None:
            return
        try:
            written = os.write(descriptor, line)
        except OSError:
            written = 0
        if written != len(line):  # a partial line: this pack takes no more
            self.writer = (os.getpid(), None, None)
            return
        self.lines[key] = encoded
        self.pack_of[key] = name

    def _own_pack(self) -> tuple[str, int | None]:
        """This process's pack, made at its first record (a --jobs worker forked after its
        parent made one makes its own); the directory compacted and bounded first."""
        if self.writer is None or self.writer[0] != os.getpid():
            self.writer = (os.getpid(), None, None)
            self._compact()
            evict(os.path.dirname(self.directory), self.max_bytes)
            name = f"{os.getpid()}-{time.time_ns()}{SUFFIX}"
            try:
                os.makedirs(self.directory, exist_ok=True)
                descriptor = os.open(os.path.join(self.directory, name),
                                     os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o644)
            except OSError:
                return "", None
            self.writer = (os.getpid(), name, descriptor)
        _, name, descriptor = self.writer
        return name or "", descriptor

    def _compact(self) -> None:
        """More than COMPACT_AT packs: their records, newest first up to half the bound, less
        those `superseded` names and those that are not JSON objects, written into one pack in
        place of them."""
        self.refresh()
        merged = [name for name in self.read if os.path.exists(os.path.join(self.directory, name))]
        if len(merged) <= COMPACT_AT:
            return
        order = {name: index for index, name in enumerate(merged)}  # refresh read them oldest first
        documents = {}
        for key in sorted(self.lines, key=lambda k: order.get(self.pack_of[k], -1), reverse=True):
            try:
                document = json.loads(self.lines[key])
            except ValueError:
                continue
            if isinstance(document, dict):
                documents[key] = document
        dropped = self.superseded(list(documents.values()))
        kept, size = [], 0
        for key in documents:
            if key in dropped:
                continue
            size += len(self.lines[key]) + 1
            if size > self.max_bytes // 2:
                break
            kept.append(key)
        name = f"{os.getpid()}-{time.time_ns()}-compacted{SUFFIX}"
        temporary = os.path.join(self.directory, name + ".tmp")
        data = b"".join(self.lines[key] + b"\n" for key in reversed(kept))
        try:
            with open(temporary, "xb") as out:
                out.write(data)
            os.replace(temporary, os.path.join(self.directory, name))
        except OSError:
            _remove(temporary)
            return
        for old in merged:
            _remove(os.path.join(self.directory, old))
            del self.read[old]
        self.read[name] = (len(data), len(data))
        for key in kept:
            self.pack_of[key] = name

    def _touch(self, name: str) -> None:
        """Recently used: the last to be evicted (once per pack and process)."""
        if name not in self.touched:
            self.touched.add(name)
            try:
                os.utime(os.path.join(self.directory, name))
            except OSError:
                pass


def evict(directory: str, max_bytes: int) -> None:
    """Remove files below `directory`'s subdirectories (packs, and the entries of an older
    layout), least recently used first, until those left hold at most `max_bytes`."""
    files = []
    for subdirectory in _scandir(directory):
        for entry in _scandir(subdirectory.path):
            try:
                info = entry.stat()
            except OSError:
                continue
            files.append((info.st_mtime_ns, info.st_size, entry.path))
    total = sum(size for _, size, _ in files)
    for _, size, path in sorted(files):
        if total <= max_bytes:
            break
        try:
            os.unlink(path)
        except OSError:
            continue  # another process removed it first
        total -= size


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _scandir(directory: str) -> list[os.DirEntry]:
    try:
        return list(os.scandir(directory))
    except OSError:
        return []
