"""A tiny Language Server Protocol client: `flake8-staticfx server` driven as an editor drives it.

JSON-RPC messages with Content-Length framing over the server's stdin/stdout; a reader thread
queues what the server sends, and every wait is bounded, so a server that stops answering fails
the caller instead of hanging it. Used by tests/test_server.py and benchmarks/server_latency.py.
"""
from __future__ import annotations

import itertools
import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path


class ServerError(AssertionError):
    """The server did not answer in time, answered with an error, or went away."""


class Client:
    def __init__(self, command: list[str] | None = None, cwd: str | None = None):
        command = command or [sys.executable, "-m", "flake8_staticfx", "server"]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, cwd=cwd)
        self.messages: queue.Queue = queue.Queue()
        self.notifications: list[dict] = []
        self.ids = itertools.count(1)
        self.versions: dict[str, int] = {}
        threading.Thread(target=self._read, daemon=True).start()

    # -- framing -------------------------------------------------------------------------------

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            length = None
            while True:
                header = stream.readline()
                if not header:
                    self.messages.put(None)  # the server closed its stdout
                    return
                if header in (b"\r\n", b"\n"):
                    break
                name, _, value = header.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            self.messages.put(json.loads(stream.read(length)))

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def _next(self, deadline: float) -> dict:
        try:
            message = self.messages.get(timeout=max(deadline - time.monotonic(), 0.001))
        except queue.Empty:
            raise ServerError("the server sent nothing in time") from None
        if message is None:
            raise ServerError(f"the server went away: {self.process.stderr.read().decode()[-2000:]}")
        return message

    # -- requests and notifications --------------------------------------------------------------

    def request(self, method: str, params: dict | None, timeout: float = 60.0) -> object:
        """The result of a request; notifications that arrive meanwhile are kept."""
        number = next(self.ids)
        self.send({"id": number, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while True:
            message = self._next(deadline)
            if message.get("id") == number and "method" not in message:
                if "error" in message:
                    raise ServerError(f"{method}: {message['error']}")
                return message.get("result")
            self._keep(message)

    def notify(self, method: str, params: dict | None) -> None:
        self.send({"method": method, "params": params})

    def _keep(self, message: dict) -> None:
        if "method" in message and "id" in message:  # a request from the server: answer it
            self.send({"id": message["id"], "result": None})
        elif "method" in message:
            self.notifications.append(message)

    def diagnostics(self, uri: str, version: int | None = None, timeout: float = 60.0) -> list[dict]:
        """The diagnostics published for `uri` (for its `version`, when given), waiting for them;
        each publication is taken once."""
        deadline = time.monotonic() + timeout
        while True:
            for index, message in enumerate(self.notifications):
                params = message.get("params") or {}
                if message["method"] == "textDocument/publishDiagnostics" and params.get("uri") == uri \
                        and (version is None or params.get("version") == version):
                    del self.notifications[index]
                    return params["diagnostics"]
            self._keep(self._next(deadline))

    # -- an editor's moves ---------------------------------------------------------------------

    def initialize(self, root: str) -> dict:
        result = self.request("initialize", {
            "processId": os.getpid(), "rootUri": Path(root).resolve().as_uri(),
            "capabilities": {"workspace": {"workspaceEdit": {"documentChanges": True}},
                             "textDocument": {"hover": {"contentFormat": ["markdown", "plaintext"]}}}})
        self.notify("initialized", {})
        return result

    def open(self, path: str, text: str | None = None) -> str:
        uri = Path(path).resolve().as_uri()
        text = Path(path).read_text(encoding="utf-8") if text is None else text
        self.versions[uri] = 1
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python",
                                                              "version": 1, "text": text}})
        return uri

    def change(self, uri: str, changes: list[dict]) -> int:
        """Send content changes; the new version."""
        self.versions[uri] += 1
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": self.versions[uri]},
                                               "contentChanges": changes})
        return self.versions[uri]

    def close(self, timeout: float = 30.0) -> int:
        """shutdown, exit; the server's exit status."""
        self.request("shutdown", None, timeout)
        self.notify("exit", None)
        self.process.stdin.close()
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise ServerError("the server did not exit after `exit`") from None

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


def apply_edits(text: str, edits: list[dict]) -> str:
    """`text` with LSP TextEdits applied (ASCII positions; edits do not overlap)."""
    lines = text.splitlines(True)

    def offset(position: dict) -> int:
        line = position["line"]
        return sum(len(item) for item in lines[:line]) + (position["character"] if line < len(lines) else 0)

    for edit in sorted(edits, key=lambda e: (e["range"]["start"]["line"], e["range"]["start"]["character"]),
                       reverse=True):
        start, end = offset(edit["range"]["start"]), offset(edit["range"]["end"])
        text = text[:start] + edit["newText"] + text[end:]
    return text


def workspace_edits(edit: dict, uri: str) -> list[dict]:
    """The TextEdits a WorkspaceEdit makes to `uri` (documentChanges or changes)."""
    if edit.get("documentChanges"):
        return [e for change in edit["documentChanges"] if change["textDocument"]["uri"] == uri
                for e in change["edits"]]
    return edit.get("changes", {}).get(uri, [])
