"""Parsing: flake8's `ast` rebuilt as astroid nodes, function bodies built on first use, and
the walks over them.

astroid is used for its node classes and scopes only: the tree is rebuilt from the `ast`
that flake8 already parsed, and no name is ever inferred, so astroid never imports torch,
third-party packages or the user's project (see `parse_source`).
"""
from __future__ import annotations

import ast
import copy
import os
import re
from collections.abc import Iterator

from astroid import MANAGER, nodes
from astroid.rebuilder import TreeRebuilder


# `global NAME`; a statement when only blanks, or a `;` or `:` (one-line `def f(): global x`),
# come before it on its line. The word alone is too wide: "global" in a comment or docstring (4 of
# transformers' 5 most imported modules) cost each of them its lazy function bodies.
_GLOBAL_WORD = re.compile(r"global[ \t]+[A-Za-z_]")


def _has_global_statement(source: str) -> bool:
    for match in _GLOBAL_WORD.finditer(source):  # a literal prefix: as fast as `in`
        before = source[source.rfind("\n", 0, match.start()) + 1:match.start()].rstrip()
        if not before or before.endswith((";", ":")):
            return True
    return False


def parse_source(tree: ast.Module, modname: str, path: str, source: str | None = None, *,
                 kept: bool = False) -> nodes.Module:
    """Rebuild flake8's `ast` tree as astroid nodes, without astroid's post-build step.

    The post-build step infers `self` for every `self.x = ...`, which walks the MRO into
    torch's (or any installed library's) sources and costs seconds; we compute instance
    attributes ourselves. It also binds `from m import a` names, which we do here.
    The rebuilder gets no source text: with it, it tokenizes every def and class header
    again for a `position` we never read.
    Given the module's `source`, function bodies are rebuilt only when first read (see
    `_LazyBody`): most functions of an imported module are never entered. A module `kept`
    beyond the file linted (cached by its project) keeps where its unbuilt bodies' statements
    stand in `source` rather than their `ast`, parsing them again if they are built: the
    linted file's own bodies are mostly built, and its tree goes with it.
    """
    builder = TreeRebuilder(MANAGER) if source is None or _has_global_statement(source) \
        else _BodyDeferringRebuilder(MANAGER, source, kept)
    module = builder.visit_module(tree, modname, path, os.path.basename(path) == "__init__.py")
    _bind_imported_names(builder, 0)
    return module


def _bind_imported_names(builder: TreeRebuilder, start: int) -> None:
    """Bind the names of the `from m import a` nodes built since `start` (post-build's job)."""
    for node, _ in builder._import_from_nodes[start:]:  # noqa: SLF001 - astroid keeps them for post-build
        for name, alias in node.names:
            if name != "*":
                node.parent.set_local(alias or name, node)
    del builder._import_from_nodes[start:]  # noqa: SLF001


class _BodyText:
    """Where a function's statements are in its module's text, parsed again when the body is
    built: the `ast` statements of the bodies never built were two fifths of what a run over 200
    model files kept at its peak (300 MiB), and half the bodies are never built."""

    def __init__(self, builder: _BodyDeferringRebuilder, statements: list[ast.stmt]):
        self.first = _first_line(statements[0])
        self.position = statements[0].lineno, statements[0].col_offset
        self.last, self.count = statements[-1].end_lineno, len(statements)
        self.builder = builder

    def text(self) -> str:
        """The statements' lines, as they stand in the module."""
        return self.builder.lines_text(self.first, self.last)

    def statements(self) -> list[ast.stmt]:
        """The statements as the module's parse gave them (lines and columns included): their
        lines parsed under an `if` at the same line numbers, else found in the whole module's
        parse (a decorator's `@` continued onto the next line)."""
        try:
            block = ast.parse("\n" * (self.first - 2) + "if 1:\n" + self.text()).body[0].body
        except (SyntaxError, ValueError):
            block = []
        if len(block) == self.count and (block[0].lineno, block[0].col_offset) == self.position:
            return block
        for node in ast.walk(ast.parse(self.builder.source)):
            body = getattr(node, "body", None)
            for index, statement in enumerate(body if isinstance(body, list) else ()):
                if (statement.lineno, statement.col_offset) == self.position:
                    return body[index:index + self.count]
        raise RuntimeError(f"no statement at line {self.position[0]} of the module")


def _first_line(statement: ast.stmt) -> int:
    """The line a statement's text starts on: its first decorator's, if any."""
    decorators = getattr(statement, "decorator_list", None)
    return min(statement.lineno, *(decorator.lineno for decorator in decorators)) if decorators else statement.lineno


class _LazyBody:
    """A function whose body (and so its locals beyond the parameters) is rebuilt from its
    `ast` statements, or from where they stand in the module's text, the first time `body` or
    `locals` is read.

    Exact only when no statement of the module is `global`: a `global x` body assigns to the
    module's locals, which must be complete from the start (parse_source checks the text).
    """

    _pending: tuple[TreeRebuilder, list[ast.stmt] | _BodyText] | None = None

    @property
    def body(self) -> list[nodes.NodeNG]:
        if self._pending is not None:
            self._build_body()
        return self._body

    @body.setter
    def body(self, value: list[nodes.NodeNG]) -> None:
        self._body = value

    @property
    def locals(self) -> dict[str, list[nodes.NodeNG]]:
        if self._pending is not None:
            self._build_body()
        return self._locals

    @locals.setter
    def locals(self, value: dict[str, list[nodes.NodeNG]]) -> None:
        self._locals = value

    def defines_nothing(self) -> bool:
        """Is it known, without building the body, that no class or function is defined in it?"""
        if self._pending is None:
            return False
        if isinstance(self._pending[1], _BodyText):
            return _DEFINITION_LINE.search(self._pending[1].text()) is None
        stack = list(self._pending[1])
        while stack:
            statement = stack.pop()
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                return False
            for name in ("body", "orelse", "finalbody", "handlers", "cases"):
                children = getattr(statement, name, None)
                if isinstance(children, list):
                    stack.extend(children)
        return True

    def _build_body(self) -> None:
        builder, statements = self._pending
        self._pending = None  # set_local below reads self.locals
        if isinstance(statements, _BodyText):
            statements = statements.statements()
        start = len(builder._import_from_nodes)  # noqa: SLF001
        builder._global_names.append({})  # noqa: SLF001 - the function's own scope, as astroid does
        self._body = [builder.visit(statement, self) for statement in statements]
        builder._global_names.pop()  # noqa: SLF001
        _bind_imported_names(builder, start)
        builder._delayed_assattr.clear()  # noqa: SLF001 - post-build's list, never run


def attributes_set_on_self(function: nodes.FunctionDef) -> set[str]:
    """The `x` of every `self.x = ...` (or `+=`) in `function`, nested scopes included. A body
    not built yet is read from its `ast` statements and stays unbuilt: asking this of every
    method of a class built them all, most never run (0.6 s over 200 library files)."""
    if not isinstance(function, _LazyBody) or function._pending is None:  # noqa: SLF001 - built
        return {node.attrname for node in nodes_of_class(function, nodes.AssignAttr)
                if isinstance(node.expr, nodes.Name) and node.expr.name == "self"}
    _, statements = function._pending  # noqa: SLF001
    if isinstance(statements, _BodyText):
        statements = statements.statements()
    return {node.attr for statement in statements for node in ast.walk(statement)
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name) and node.value.id == "self"}


class _LazyFunctionDef(_LazyBody, nodes.FunctionDef):
    pass


class _LazyAsyncFunctionDef(_LazyBody, nodes.AsyncFunctionDef):
    pass


# Named as the classes they stand for: astroid's `accept` and our handlers dispatch on the name.
_LazyFunctionDef.__name__ = _LazyFunctionDef.__qualname__ = "FunctionDef"
_LazyAsyncFunctionDef.__name__ = _LazyAsyncFunctionDef.__qualname__ = "AsyncFunctionDef"
_LAZY_CLASSES = {nodes.FunctionDef: _LazyFunctionDef, nodes.AsyncFunctionDef: _LazyAsyncFunctionDef}


# A line that starts a `def` or `class` statement (or a line of a string that reads as one).
_DEFINITION_LINE = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)\b", re.MULTILINE)


class _BodyDeferringRebuilder(TreeRebuilder):
    """astroid's rebuilder, building each function with its docstring, decorators and
    parameters now and its statements on first use: in a kept module, from where they stand in
    `source` when their lines hold nothing else (read with universal newlines, as projects.py
    and flake8 do), else from the `ast` statements kept."""

    def __init__(self, manager, source: str, kept: bool):
        super().__init__(manager)
        self.source = source
        self._bodies_as_text = kept and "\r" not in source and "\f" not in source
        self._line_starts: list[int] | None = None

    def lines_text(self, first: int, last: int) -> str:
        """Lines `first` to `last` (1-based, inclusive) of the source."""
        starts = self._starts()
        return self.source[starts[first - 1]:starts[last] if last < len(starts) else len(self.source)]

    def _starts(self) -> list[int]:
        if self._line_starts is None:
            self._line_starts = [0, *(match.end() for match in re.finditer("\n", self.source))]
        return self._line_starts

    def _stands_alone(self, statement: ast.stmt) -> bool:
        """Does `statement` begin its line (nothing but its indentation before it)?"""
        first = _first_line(statement)
        if not self._bodies_as_text or first < 2:
            return False
        start = self._starts()[first - 1]
        return self.source[start:start + statement.col_offset].isspace()

    def _visit_functiondef(self, cls, node, parent):
        first = node.body[:1]
        has_doc = bool(first) and isinstance(first[0], ast.Expr) and isinstance(first[0].value, ast.Constant) \
            and isinstance(first[0].value.value, str)
        header = copy.copy(node)
        header.body = first if has_doc else []
        function = super()._visit_functiondef(_LAZY_CLASSES[cls], header, parent)
        statements = node.body[1:] if has_doc else node.body
        if statements:
            function._pending = (self, _BodyText(self, statements) if self._stands_alone(statements[0]) else statements)
        return function


def nodes_of_class(node: nodes.NodeNG, klass: type | tuple[type, ...],
                   skip: type | tuple[type, ...] | None = None) -> Iterator:
    """What astroid's `node.nodes_of_class(klass, skip)` yields, in its order, walked with a
    stack: astroid's nests a generator per level, so each node it yields passes up through every
    level above it (a sixth of the analysis of a model file went there)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, klass):
            yield current
        children = [child for child in current.get_children() if skip is None or not isinstance(child, skip)]
        children.reverse()
        stack.extend(children)


def definitions(scope: nodes.NodeNG) -> Iterator[nodes.ClassDef | nodes.FunctionDef]:
    """The classes and functions defined anywhere in `scope`, in `nodes_of_class` order.
    Only statements hold definitions, so no expression is walked (most of a module's nodes),
    and a function body not built yet is built only when its statements define something."""
    for child in scope.get_children():
        if isinstance(child, (nodes.ClassDef, nodes.FunctionDef)):
            yield child
            if isinstance(child, _LazyBody) and child.defines_nothing():
                continue
        if child.is_statement or isinstance(child, nodes.MatchCase):
            yield from definitions(child)


def last_name(expr: nodes.NodeNG) -> str | None:
    if isinstance(expr, nodes.Subscript):
        expr = expr.value
    if isinstance(expr, nodes.Attribute):
        return expr.attrname
    return expr.name if isinstance(expr, nodes.Name) else None


def decorated(decorator: nodes.NodeNG) -> nodes.NodeNG:
    """`torch.compile` for both `@torch.compile` and `@torch.compile(mode=...)`."""
    return decorator.func if isinstance(decorator, nodes.Call) else decorator
