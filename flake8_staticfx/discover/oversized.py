"""Modules too large to analyse whole (over MAX_PROJECT_MODULE_SIZE): a top-level function is
read from a slice of one, its top-level statements found by their text and parsed one by one."""
from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterator

from .parse import parse_source
from .projects import SourceModule

# The most lines a slice of an oversized module may hold (OversizedModule.function_slice).
MAX_SLICE_LINES = 1_000

_COMPOUND_HEAD = re.compile(r"(?:if|try|with|for|while|match|async\s+(?:with|for))\b")
_IMPORT_HEAD = re.compile(r"(?:from|import)\b")
_DEFINITION_HEAD = re.compile(r"(?:async\s+)?(?:def|class)\s+(\w+)")
_TRIPLE_QUOTES = re.compile(r"\"\"\"|'''")
_NOT_A_START = ("", " ", "\t", "#", ")", "]", "}")
# A line at column 0 that may start a statement: not a comment, a closing bracket nor a clause
# of the compound statement before it.
_LINE_AT_COLUMN_0 = re.compile(r"^(?!(?:else|elif|except|finally)\b)[^\s#)\]}]", re.M)


class TopStatement:
    """One top-level statement of an oversized module, found from its text: it starts at a
    line at column 0 (its decorators' first) and runs to the line before the next one. Parsed
    alone, and only when a slice needs it."""

    def __init__(self, lines: list[str], first: int, last: int):
        self.first, self.last = first, last  # 1-based, inclusive
        self._lines = lines
        # The line naming what it binds: a decorated def's or class's own line.
        self.head = next((line for line in lines[first - 1:last]
                          if not line.startswith("@") and line[:1] not in _NOT_A_START), lines[first - 1])
        # Its bindings may be anywhere in it: a block (`if TYPE_CHECKING: import torch`), an import.
        self.binds_inside = bool(_COMPOUND_HEAD.match(self.head) or _IMPORT_HEAD.match(self.head))
        defined = _DEFINITION_HEAD.match(self.head)
        self.defines = defined.group(1) if defined else None  # a def's or class's name

    @functools.cached_property
    def text(self) -> str:
        return "\n".join(self._lines[self.first - 1:self.last])

    @functools.cached_property
    def node(self) -> ast.stmt | None:
        """The statement, at its own line numbers (the lines before it parsed as blank); None
        when its text is not one statement (a line at column 0 inside a string cut it)."""
        try:
            body = ast.parse("\n" * (self.first - 1) + self.text).body
        except (SyntaxError, ValueError, RecursionError):
            return None
        return body[0] if len(body) == 1 else None

    def binds(self, name: str) -> bool:
        if self.defines is not None:
            return name == self.defines
        return self.node is not None and name in _bound_names(self.node)

    @functools.cached_property
    def reads(self) -> frozenset[str]:
        return _read_names(self.node) if self.node is not None else frozenset()


class OversizedModule:
    """A module over MAX_PROJECT_MODULE_SIZE, read once while its file is unchanged. It is never
    analysed, nor even parsed, whole: its top-level classes are parsed for output records'
    fields, and the slice around one of its functions is cut from its top-level statements,
    found by their lines at column 0 and parsed one by one as the slice needs them. Parsing
    and indexing the whole module (transformers' modeling_utils.py, 280 KB: 75 ms) cost a
    fresh flake8 on a typical model file a third of its time, and keeping the trees of the 11
    such modules that 200 sampled library files reach, 39 MiB."""

    def __init__(self, path: str):
        self.path = path
        try:
            with open(path, encoding="utf-8") as handle:
                self.text = handle.read()
        except (OSError, UnicodeDecodeError):
            self.text = ""
        self._slices: dict[tuple[str, str], SourceModule | None] = {}
        self._binders: dict[str, list[int] | None] = {}

    @functools.cached_property
    def classes(self) -> dict[str, ast.ClassDef]:
        try:
            body = ast.parse(self.text).body
        except (SyntaxError, ValueError, RecursionError):
            return {}
        return {node.name: node for node in body if isinstance(node, ast.ClassDef)}

    @functools.cached_property
    def statements(self) -> list[TopStatement]:
        """The top-level statements, by the lines that start them: at column 0, outside a
        triple-quoted string, not a comment, a closing bracket or a continued line; a
        decorator starts the statement it decorates."""
        lines = self.text.split("\n")  # as the tokenizer counts them: read with universal newlines
        starts, quote, line, offset = [], None, 1, 0
        quotes = _TRIPLE_QUOTES.finditer(self.text)
        pending = next(quotes, None)
        for match in _LINE_AT_COLUMN_0.finditer(self.text):
            while pending is not None and pending.start() < match.start():  # a line in a string starts nothing
                quote = pending.group() if quote is None else None if pending.group() == quote else quote
                pending = next(quotes, None)
            line += self.text.count("\n", offset, match.start())
            offset = match.start()
            if quote is None and not (line > 1 and lines[line - 2].endswith("\\")):
                starts.append(line)
        merged = [n for i, n in enumerate(starts) if i == 0 or not lines[starts[i - 1] - 1].startswith("@")]
        ends = [n - 1 for n in merged[1:]] + [len(lines)]
        return [TopStatement(lines, first, last) for first, last in zip(merged, ends)]

    @functools.cached_property
    def _heads(self) -> dict[str, list[int]]:
        """Each name a statement may bind on its head line (a def's or class's own name, any
        word of another statement's): the statements having it there."""
        found: dict[str, list[int]] = {}
        for index, statement in enumerate(self.statements):
            for word in {statement.defines} if statement.defines else set(re.findall(r"\w+", statement.head)):
                found.setdefault(word, []).append(index)
        return found

    @functools.cached_property
    def _blocks(self) -> list[int]:
        return [index for index, statement in enumerate(self.statements) if statement.binds_inside]

    def binders(self, name: str) -> list[int] | None:
        """The indices of the top-level statements binding `name`; None when one that may bind it
        does not parse alone (the slice is then not made)."""
        if name not in self._binders:
            word = re.compile(rf"\b{re.escape(name)}\b")
            candidates = sorted({*self._heads.get(name, ()),
                                 *(i for i in self._blocks if word.search(self.statements[i].text))})
            found: list[int] | None = []
            for index in candidates:
                statement = self.statements[index]
                if statement.defines is None and statement.node is None:
                    found = None
                    break
                if statement.binds(name):
                    found.append(index)
            self._binders[name] = found
        return self._binders[name]

    def function_slice(self, modname: str, name: str) -> SourceModule | None:
        """The module `modname` cut down to its top-level function `name` and the top-level
        statements binding the names it reads, transitively (imports, assignments, other
        functions and classes): analysing the whole module cost every file importing it
        (transformers' import_utils.py, 134 KB) 64 ms. The statements keep their line numbers.
        None when `name` is bound by something else than a `def`, or when the slice would
        exceed MAX_SLICE_LINES or a statement it needs does not parse alone: a name left out of
        it would not resolve, and a name that does not resolve may be taken for a builtin."""
        key = (modname, name)
        if key not in self._slices:
            self._slices[key] = self._build_slice(modname, name)
        return self._slices[key]

    def _build_slice(self, modname: str, name: str) -> SourceModule | None:
        if not any(self.text.startswith(head) or f"\n{head}" in self.text for head in (f"def {name}(", f"async def {name}(")):
            return None  # no top-level def of it (a class, an assignment): the module is not indexed
        own = self.binders(name)
        if not own or not all(self.statements[i].head.startswith(("def ", "async ")) for i in own):
            return None  # bound otherwise too
        chosen = self._read_closure(own)
        if chosen is None:
            return None
        body = [self.statements[i].node for i in sorted(chosen)]
        if any(node is None for node in body):
            return None
        try:
            node = parse_source(ast.Module(body=body, type_ignores=[]), modname, self.path, self.text)
        except (SyntaxError, ValueError, RecursionError):
            return None
        return SourceModule(node, self.path, modname, self.text, sliced=True)

    def _read_closure(self, start: list[int]) -> set[int] | None:
        """The indices of `start` and of every top-level statement binding a name that the
        chosen statements read; None past MAX_SLICE_LINES lines, or when a binder does not parse."""
        chosen, pending, seen, lines = set(start), list(start), set(), 0
        while pending:
            statement = self.statements[pending.pop()]
            lines += statement.last - statement.first + 1
            if lines > MAX_SLICE_LINES:
                return None
            for read in statement.reads - seen:
                seen.add(read)
                binders = self.binders(read)
                if binders is None:
                    return None
                for index in binders:
                    if index not in chosen:
                        chosen.add(index)
                        pending.append(index)
        return chosen


@functools.lru_cache(maxsize=8)
def oversized_module(path: str, stamp: tuple[int, int]) -> OversizedModule:
    """The module at `path` over MAX_PROJECT_MODULE_SIZE, while `stamp` (mtime, size) holds."""
    return OversizedModule(path)


def _bound_names(statement: ast.stmt) -> Iterator[str]:
    """The module-level names a top-level statement binds (not the locals of the functions,
    classes, lambdas and comprehensions in it)."""
    stack: list[ast.AST] = [statement]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            yield from (alias.asname or alias.name.split(".")[0] for alias in node.names if alias.name != "*")
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            yield node.id
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            yield node.name
        if not isinstance(node, _OWN_SCOPES):
            stack.extend(ast.iter_child_nodes(node))


_OWN_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp, ast.SetComp,
               ast.DictComp, ast.GeneratorExp)


def _read_names(statement: ast.stmt) -> frozenset[str]:
    """Every name a statement reads, its functions' bodies included (a superset of the
    module-level names it needs: a local that shadows one only costs its binder in a slice)."""
    return frozenset(node.id for node in ast.walk(statement) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load))
