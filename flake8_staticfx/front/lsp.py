"""The language server on pygls: open buffers linted as they change, fixes, rule docs on hover.

Threads. The protocol runs on pygls' event loop and never analyses: every analysis runs on
one `lint` thread (the per-process caches of parsed project files and libraries in discover
are not thread-safe, and are what makes the second analysis of a file cheap), and fix's
plans (a LibCST parse with scope resolution: seconds on a 500-line file) on one `fixes`
thread, so that a plan never delays the lint of the next keystroke.

Timing. A change after a quiet moment is linted at once; the changes of a burst are linted
once, DEBOUNCE after the last of them. A newer version cancels the pending lint of an older
one; one already running finishes, and its result is dropped if the buffer moved on (results
carry their document version). After a lint with a fixable code, the fix plan is worked out
once the buffer has been quiet for PLAN_AFTER, so that the light bulb is usually ready.

The project as the user sees it. A buffer is analysed against the unsaved text of the other
open buffers (discover.projects.UNSAVED), and a change in one buffer lints the project's other
open buffers again: the break a helper gains shows at the model's call before any save.
"""
from __future__ import annotations

import asyncio
import gc
import time
from concurrent.futures import ThreadPoolExecutor

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from .. import __version__
from ..discover.projects import UNSAVED, project_root
from .buffer import Action, BufferLint, Shown, TextChange
from .settings import ConfigError

DEBOUNCE = 0.15  # seconds after the last change of a burst
PLAN_AFTER = 1.0  # seconds of quiet before the fix plan of a version is worked out unasked
SOURCE = "flake8-staticfx"
FIX_ALL_KIND = f"{types.CodeActionKind.SourceFixAll.value}.{SOURCE}"


class StaticFxServer(LanguageServer):
    """The lint of each open buffer, the newest version's kept for its code actions and hover."""

    def __init__(self) -> None:
        super().__init__(SOURCE, __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.lint_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="staticfx-lint")
        self.fix_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="staticfx-fixes")
        self.linted: dict[str, BufferLint] = {}  # uri -> the lint of the newest version linted
        self.pending: dict[str, asyncio.Task] = {}  # uri -> its lint waiting or running
        self.running: dict[str, tuple[int | None, asyncio.Future]] = {}  # uri -> (version, its analysis)
        self.planning: dict[str, asyncio.Task] = {}  # uri -> its fix plan waiting for quiet
        self.last_change: dict[str, float] = {}
        self.shut_down = False  # a shutdown request came: exit is then clean (status 0)

    # -- linting ------------------------------------------------------------------------------

    def schedule(self, uri: str, at_once: bool = False) -> None:
        """Lint the buffer's newest version: at once after a quiet moment, else DEBOUNCE after
        this change (a later change reschedules it)."""
        now = time.monotonic()
        quiet = now - self.last_change.get(uri, float("-inf")) >= DEBOUNCE
        self.last_change[uri] = now
        self.cancel(uri)
        self.pending[uri] = asyncio.ensure_future(self.relint(uri, 0.0 if at_once or quiet else DEBOUNCE))

    def schedule_dependents(self, path: str | None, delay: float = DEBOUNCE) -> None:
        """Lint again, `delay` after this call, the other open buffers of the project `path` is
        in (every open buffer for None): a file they may call into changed, saved or not."""
        root = _project_root(path) if path else None
        for uri, document in list(self.workspace.text_documents.items()):
            if document.path is not None and document.path != path and \
                    (root is None or _project_root(document.path) == root):
                self.cancel(uri)
                self.linted.pop(uri, None)
                self.pending[uri] = asyncio.ensure_future(self.relint(uri, delay))

    def cancel(self, uri: str) -> None:
        """Drop the waiting work of the buffer's older versions (an analysis already running
        finishes; its result is dropped)."""
        for tasks in (self.pending, self.planning):
            task = tasks.pop(uri, None)
            if task is not None:
                task.cancel()
        running = self.running.pop(uri, None)
        if running is not None:
            running[1].cancel()

    async def relint(self, uri: str, delay: float) -> None:
        await asyncio.sleep(delay)
        lint = await self.lint_now(uri)
        if lint is None or not lint.parsed:
            return  # a buffer that does not parse keeps the diagnostics of its last version that did
        self.publish(uri, lint)
        if any(s.finding.code in _fixed_codes() for s in lint.shown):
            self.planning[uri] = asyncio.ensure_future(self.plan_when_quiet(lint))

    async def lint_now(self, uri: str) -> BufferLint | None:
        """The lint of the buffer's current version (reused when already made); None for a
        closed buffer, one that is not a file, or a result a newer version made stale."""
        document = self.workspace.text_documents.get(uri)
        if document is None or document.path is None:
            return None
        known = self.linted.get(uri)
        if known is not None and known.version == document.version:
            return known
        version = document.version
        running = self.running.get(uri)
        if running is None or running[0] != version:
            unsaved = {other.path: other.source for other in self.workspace.text_documents.values()
                       if other.path is not None and other.path != document.path}
            future = asyncio.get_running_loop().run_in_executor(
                self.lint_thread, _lint, document.path, document.source, version, unsaved)
            running = self.running[uri] = (version, future)
        try:
            lint = await asyncio.shield(running[1])  # a cancelled request leaves the analysis to the others
        except ConfigError as exc:
            self.window_show_message(types.ShowMessageParams(types.MessageType.Error, f"{SOURCE}: {exc}"))
            return None
        except Exception as exc:  # noqa: BLE001 - said to the user; the server goes on with the next version
            self.window_show_message(types.ShowMessageParams(
                types.MessageType.Error, f"{SOURCE} could not lint {document.path}: {type(exc).__name__}: {exc}"))
            return None
        current = self.workspace.text_documents.get(uri)
        if current is None or current.version != version:
            return None
        self.linted[uri] = lint
        return lint

    async def plan_when_quiet(self, lint: BufferLint) -> None:
        await asyncio.sleep(PLAN_AFTER)
        await asyncio.get_running_loop().run_in_executor(self.fix_thread, lint.prepare_fixes)

    def publish(self, uri: str, lint: BufferLint) -> None:
        document = self.workspace.get_text_document(uri)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, version=lint.version,
            diagnostics=[self.diagnostic(document, shown) for shown in lint.shown]))

    def forget(self, uri: str) -> None:
        self.cancel(uri)
        self.linted.pop(uri, None)
        self.last_change.pop(uri, None)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    # -- protocol records ---------------------------------------------------------------------

    @staticmethod
    def diagnostic(document, shown: Shown) -> types.Diagnostic:
        place, finding = shown.place, shown.finding
        lines = document.lines
        start = document.position_codec.position_to_client_units(lines, types.Position(place.line, place.start))
        end = document.position_codec.position_to_client_units(lines, types.Position(place.line, place.end))
        related = None
        if shown.elsewhere is not None:
            where = shown.elsewhere
            line_range = types.Range(types.Position(where.line, 0), types.Position(where.line + 1, 0))
            related = [types.DiagnosticRelatedInformation(
                types.Location(from_fs_path(where.path), line_range), f"the construct: `{where.text}`")]
        return types.Diagnostic(
            range=types.Range(start, end), message=finding.message, severity=types.DiagnosticSeverity.Warning,
            code=finding.code, code_description=types.CodeDescription(href=shown.url) if shown.url else None,
            source=SOURCE, related_information=related)

    def code_action(self, uri: str, version: int | None, action: Action) -> types.CodeAction:
        document = self.workspace.get_text_document(uri)
        edit = _text_edit(document, action.change)
        if _versioned_edits(self.client_capabilities):
            workspace_edit = types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
                types.OptionalVersionedTextDocumentIdentifier(uri, version), [edit])])
        else:
            workspace_edit = types.WorkspaceEdit(changes={uri: [edit]})
        kind = FIX_ALL_KIND if action.kind == "fix all" else types.CodeActionKind.QuickFix
        diagnostics = [self.diagnostic(document, action.shown)] if action.shown is not None else None
        return types.CodeAction(title=action.title, kind=kind, diagnostics=diagnostics, edit=workspace_edit,
                                is_preferred=action.kind == "fix")


def _lint(path: str, text: str, version: int | None, unsaved: dict[str, str]) -> BufferLint:
    """The buffer linted against the other open buffers' texts (in the lint thread, the only
    one that reads or sets them)."""
    UNSAVED.clear()
    UNSAVED.update(unsaved)
    return BufferLint.of(path, text, version)


def _text_edit(document, change: TextChange) -> types.TextEdit:
    end = types.Position(change.end, change.end_column)
    if change.end_column:
        end = document.position_codec.position_to_client_units(document.lines, end)
    return types.TextEdit(types.Range(types.Position(change.start, 0), end), change.text)


def _versioned_edits(capabilities: types.ClientCapabilities) -> bool:
    workspace = capabilities.workspace
    return bool(workspace and workspace.workspace_edit and workspace.workspace_edit.document_changes)


def _fixed_codes() -> tuple[str, ...]:
    from ..fix import REWRITTEN_CODES

    return REWRITTEN_CODES


def _project_root(path: str) -> str:
    return project_root(path)[0]


def _wanted(kind: str, only: list[str] | None) -> bool:
    """Does the client's `only` filter (hierarchical kinds) let `kind` through?"""
    return not only or any(kind == wanted or kind.startswith(f"{wanted}.") for wanted in only)


# -- handlers ---------------------------------------------------------------------------------

def build() -> StaticFxServer:
    server = StaticFxServer()

    @server.feature(types.INITIALIZED)
    def initialized(ls: StaticFxServer, params: types.InitializedParams) -> None:
        ls.lint_thread.submit(_warm_up)
        ls.fix_thread.submit(_warm_up_fixes)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: StaticFxServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, at_once=True)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: StaticFxServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri)
        ls.schedule_dependents(ls.workspace.get_text_document(params.text_document.uri).path)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: StaticFxServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.forget(params.text_document.uri)
        ls.schedule_dependents(to_fs_path(params.text_document.uri), delay=0.0)  # back to its text on disk

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def files_changed(ls: StaticFxServer, params: types.DidChangeWatchedFilesParams) -> None:
        ls.schedule_dependents(None, delay=0.0)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND]))
    async def code_actions(ls: StaticFxServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        uri = params.text_document.uri
        lint = await ls.lint_now(uri)
        if lint is None or not lint.parsed:
            return None
        first, last = params.range.start.line, params.range.end.line
        actions = await asyncio.get_running_loop().run_in_executor(ls.fix_thread, lint.actions, first, last)
        only = params.context.only
        found = [ls.code_action(uri, lint.version, action) for action in actions]
        return [action for action in found if _wanted(action.kind, only)] or None

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: StaticFxServer, params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        lint = await ls.lint_now(uri)
        if lint is None or not lint.parsed:
            return None
        document = ls.workspace.get_text_document(uri)
        position = document.position_codec.position_from_client_units(document.lines, params.position)
        under = lint.at(position.line, position.character)
        if not under:
            return None
        loop = asyncio.get_running_loop()
        texts = [await loop.run_in_executor(ls.lint_thread, lint.hover, shown) for shown in under]
        diagnostic = ls.diagnostic(document, under[0])
        return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, "\n\n---\n\n".join(texts)),
                           diagnostic.range)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: StaticFxServer, params: None) -> None:
        ls.shut_down = True
        for uri in list(ls.pending):
            ls.cancel(uri)
        for thread in (ls.lint_thread, ls.fix_thread):
            thread.shutdown(wait=False, cancel_futures=True)

    return server


def _warm_up() -> None:
    """Import the analysis before the first buffer asks for it, and keep what the imports made
    (it lives as long as the process) out of the garbage collector's walks: a warm lint of
    benchmarks/server_latency.py's 500-line file took 0.30 s instead of 0.46 s (median of 10, machine loaded)."""
    from .. import analysis  # noqa: F401

    gc.collect()
    gc.freeze()


def _warm_up_fixes() -> None:
    """Import fix and LibCST (a second of the first code action otherwise)."""
    from .. import fix  # noqa: F401
    import libcst  # noqa: F401


def serve() -> int:
    """Speak the protocol on stdin/stdout until the client says exit: 0 after a shutdown
    request, 1 without one (as the protocol asks)."""
    server = build()
    server.start_io()
    return 0 if server.shut_down else 1
