"""`python -m flake8_staticfx fix PATH...`: rewrite the graph breaks it can prove removable.

The analysis (`analysis.analyze`) says where dynamo breaks: each region's code, line and column.
This module finds the construct at that place in the file's concrete syntax tree (LibCST, so
that formatting and comments outside the edit are kept byte for byte), decides on the tree
whether a rewrite keeps the model's eager outputs, and either edits it or declines with the
reason. Legality never depends on guessing: an expression counts as a tensor only where the
analysis traced a tensor operation at exactly its span.

Each rewrite is one class below; its docstring states the dynamo 2.13 behaviour it relies on
(measured with torch 2.13.0, `backend="eager"`, default configuration).

libcst is imported only by the functions that need it (the flake8 plugin never imports it).
"""
from __future__ import annotations

import argparse
import difflib
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Iterable

# The forms `fix` rewrites, per code (the rule pages say so; each rewrite's docstring says why
# it is safe); every other occurrence is declined with its reason.
REWRITTEN_FORMS = {
    "SFX101": "`if <tensor cond>: raise E(...)` becomes `torch._assert_async(...)`; an `if`/`else` (or "
              "ternary) whose arms only assign the same names from element-wise expressions of the same "
              "operands, on a zero-dimensional condition, becomes `torch.where`",
    "SFX102": "`t.item()` / `float(t)` whose value only feeds tensor arithmetic or comparisons becomes "
              "`t.detach()` (a 0-d tensor)",
    "SFX201": "a `print(...)` statement is guarded by `if not torch.compiler.is_compiling():`",
    "SFX202": "a logging statement (or an `if logger.isEnabledFor(...)`) is guarded by "
              "`not torch.compiler.is_compiling()`",
    "SFX203": "a `warnings.warn(...)` statement is guarded by `if not torch.compiler.is_compiling():`",
}
REWRITTEN_CODES = tuple(REWRITTEN_FORMS)

GUARD = "not torch.compiler.is_compiling()"

LOGGER_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})

# Element-wise functions: the result has the broadcast shape of the tensor operands.
ELEMENTWISE_FUNCTIONS = frozenset({
    "abs", "neg", "exp", "exp2", "expm1", "log", "log1p", "log2", "log10", "sqrt", "rsqrt", "square",
    "sin", "cos", "tan", "tanh", "sigmoid", "relu", "relu6", "gelu", "silu", "mish", "elu", "selu",
    "celu", "leaky_relu", "softplus", "softsign", "hardtanh", "hardsigmoid", "hardswish", "logsigmoid",
    "tanhshrink", "erf", "erfc", "sign", "floor", "ceil", "round", "trunc", "frac", "reciprocal",
    "clamp", "clip", "clamp_min", "clamp_max", "float", "double", "half", "bfloat16", "detach",
    "logical_not", "bitwise_not", "isnan", "isinf", "isfinite", "nan_to_num", "pow", "mul", "add",
    "sub", "div", "true_divide", "maximum", "minimum", "where", "lerp",
})
# Method calls that produce a single-element, zero-dimensional tensor when called without arguments.
FULL_REDUCTIONS = frozenset({"sum", "mean", "max", "min", "amax", "amin", "any", "all", "norm", "prod",
                             "std", "var", "median", "logsumexp"})
BOOLEAN_METHODS = frozenset({"any", "all", "isnan", "isinf", "isfinite", "eq", "ne", "gt", "lt", "ge",
                             "le", "logical_and", "logical_or", "logical_not", "bool"})
MUTATING_METHODS = frozenset({"append", "extend", "pop", "popitem", "update", "add", "remove", "insert",
                              "clear", "setdefault", "discard", "write", "send", "step", "zero_", "copy_",
                              "fill_", "add_", "mul_", "sub_", "div_"})


@dataclass
class Outcome:
    """What `fix` did with one break: `rewrite` names the rewrite, else `reason` says why not."""

    path: str
    code: str
    line: int
    col: int
    rewrite: str | None = None
    reason: str | None = None
    summary: str = ""  # for a rewrite: what was done, in a few words

    def describe(self) -> str:
        where = f"{self.path}:{self.line}"
        if self.rewrite:
            return f"fixed {self.code} at {where}: {self.summary}"
        return f"declined {self.code} at {where}: {self.reason}"


class Decline(Exception):
    """Raised by a rewrite's `plan` with the reason the rewrite cannot be shown safe."""


@dataclass
class Edit:
    """Replace `node` (a node of the wrapped module) by `replacement` (a node or a sentinel)."""

    node: Any
    replacement: Any
    outcome: Outcome
    needs_torch: bool = False  # the replacement names `torch`, which the file does not bind


@dataclass
class FileFix:
    path: str
    source: str
    fixed: str
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.fixed != self.source


# -- the tree and what the analysis knows about it --------------------------------------------

class Context:
    """One file's CST with positions, parents and scopes, and the analysis' tensor spans."""

    def __init__(self, source: str, path: str, tensor_spans: set[tuple[int, int, int, int]]):
        import libcst as cst
        from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider, ScopeProvider

        self.cst = cst
        self.path = path
        self.wrapper = MetadataWrapper(cst.parse_module(source))
        self.module = self.wrapper.module
        self.positions = self.wrapper.resolve(PositionProvider)
        self.parents = self.wrapper.resolve(ParentNodeProvider)
        self.scopes = self.wrapper.resolve(ScopeProvider)
        self.tensor_spans = tensor_spans
        self.needs_import_torch = False
        self._by_start: dict[tuple[int, int], list[Any]] = {}
        for node, pos in self.positions.items():
            self._by_start.setdefault((pos.start.line, pos.start.column), []).append(node)

    def code(self, node) -> str:
        return self.module.code_for_node(node)

    def at(self, line: int, col: int, kind) -> list[Any]:
        """Nodes of type `kind` that start at (line, col), outermost first."""
        found = [n for n in self._by_start.get((line, col), ()) if isinstance(n, kind)]
        return sorted(found, key=lambda n: self._size(n), reverse=True)

    def _size(self, node) -> tuple[int, int]:
        pos = self.positions[node]
        return (pos.end.line - pos.start.line, pos.end.column - pos.start.column)

    def span(self, node) -> tuple[int, int, int, int]:
        pos = self.positions[node]
        return (pos.start.line, pos.start.column, pos.end.line, pos.end.column)

    def is_tensor_op(self, node) -> bool:
        """Did the analysis trace a tensor operation at exactly this expression's span?"""
        return self.span(node) in self.tensor_spans

    def parent(self, node):
        return self.parents.get(node)

    def imports_torch(self) -> bool:
        """Is `torch` bound at module level (`import torch`, `import torch.nn`)? If not, the
        edit that needs it asks for `import torch` to be added (see `apply_edits`)."""
        cst = self.cst
        for statement in self.module.body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.Import):
                        for alias in small.names:
                            if self.code(alias.name).split(".")[0] == "torch" and alias.asname is None:
                                return True
        self.needs_import_torch = True
        return True


def tensor_spans(analysis, path: str) -> set[tuple[int, int, int, int]]:
    """(line, col, end_line, end_col) of every traced tensor operation written in `path`."""
    spans = set()
    for graph in analysis.graphs:
        for node in graph.nodes:
            span = node.meta.get("span")
            if span is None or node.op in ("placeholder", "output") or span.file != path:
                continue
            spans.add((span.line, span.col, span.end_line, span.end_col))
    return spans


# -- side effects, shapes ---------------------------------------------------------------------

def side_effect(ctx: Context, node) -> str | None:
    """The code of a subexpression that may have a side effect, or None."""
    cst = ctx.cst
    for sub in _walk(cst, node):
        if isinstance(sub, (cst.NamedExpr, cst.Yield, cst.Await)):
            return ctx.code(sub)
        if isinstance(sub, cst.Call) and isinstance(sub.func, cst.Attribute) \
                and sub.func.attr.value in MUTATING_METHODS:
            return ctx.code(sub)
        if isinstance(sub, cst.Call) and isinstance(sub.func, cst.Name) and sub.func.value in ("next", "setattr"):
            return ctx.code(sub)
    return None


def _walk(cst, node) -> Iterable[Any]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)


def _call_name(cst, call) -> str | None:
    """`torch.relu` -> "relu", `F.gelu` -> "gelu", `x.tanh` -> "tanh"."""
    func = call.func
    if isinstance(func, cst.Attribute):
        return func.attr.value
    if isinstance(func, cst.Name):
        return func.value
    return None


def _dotted(ctx: Context, node) -> str | None:
    cst = ctx.cst
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        inner = _dotted(ctx, node.value)
        return f"{inner}.{node.attr.value}" if inner else None
    return None


TORCH_NAMESPACES = ("torch", "torch.nn.functional", "F", "nn.functional", "torch.special")


def elementwise_leaves(ctx: Context, node, arm: str) -> set[str]:
    """The operands (names, attributes) of an element-wise expression, or Decline saying why
    the expression is not one: its result then has the broadcast shape of these operands."""
    cst = ctx.cst
    if isinstance(node, (cst.Integer, cst.Float)):
        return set()
    if isinstance(node, (cst.Name, cst.Attribute)):
        dotted = _dotted(ctx, node)
        if dotted is None:
            raise Decline(f"the {arm} reads `{ctx.code(node)}`, which fix cannot follow")
        return {dotted}
    if isinstance(node, cst.UnaryOperation):
        if isinstance(node.operator, cst.Not):
            raise Decline(f"the {arm} uses `not`, which is Python control flow")
        return elementwise_leaves(ctx, node.expression, arm)
    if isinstance(node, cst.BinaryOperation):
        if isinstance(node.operator, cst.MatrixMultiply):
            raise Decline(f"the {arm} multiplies matrices (`{ctx.code(node)}`), which changes the shape")
        return elementwise_leaves(ctx, node.left, arm) | elementwise_leaves(ctx, node.right, arm)
    if isinstance(node, cst.Call):
        name = _call_name(cst, node)
        func = node.func
        owner = _dotted(ctx, func.value) if isinstance(func, cst.Attribute) else None
        if name in ELEMENTWISE_FUNCTIONS:
            if owner in TORCH_NAMESPACES:  # torch.relu(x, ...): operands are the arguments
                leaves: set[str] = set()
                for arg in node.args:
                    leaves |= elementwise_leaves(ctx, arg.value, arm)
                return leaves
            if isinstance(func, cst.Attribute):  # x.relu(...), x.clamp(0, 1)
                leaves = elementwise_leaves(ctx, func.value, arm)
                for arg in node.args:
                    leaves |= elementwise_leaves(ctx, arg.value, arm)
                return leaves
        callee = ctx.code(func)
        if owner is not None and owner.split(".")[0] == "self" or isinstance(func, cst.Name):
            raise Decline(f"the {arm} calls a module or function (`{callee}`), and torch.where would run "
                          "both branches; torch.cond needs both branches to return the same shape and "
                          "dtype, which fix cannot show statically")
        raise Decline(f"the {arm} calls `{callee}`, which is not element-wise, so the arms' shapes may "
                      "differ and torch.where would broadcast them")
    if isinstance(node, cst.Subscript):
        raise Decline(f"the {arm} indexes (`{ctx.code(node)}`), so the arms' shapes may differ")
    if isinstance(node, cst.Comparison):
        if len(node.comparisons) != 1:
            raise Decline(f"the {arm} chains comparisons, which is Python control flow")
        return elementwise_leaves(ctx, node.left, arm) | elementwise_leaves(
            ctx, node.comparisons[0].comparator, arm)
    raise Decline(f"the {arm} computes `{ctx.code(node)}`, which fix cannot show to be a "
                  "side-effect-free tensor expression")


def tensor_condition(ctx: Context, test, *, zero_dim: bool) -> tuple[Any, bool]:
    """(the condition without a leading `not`, negated?) for a tensor condition fix can move
    into a tensor op; Decline when the condition is Python control flow or has side effects."""
    cst = ctx.cst
    negated = False
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        negated = not negated
        test = test.expression
    for sub in _walk(cst, test):
        if isinstance(sub, cst.BooleanOperation):
            raise Decline(f"the condition uses `{ctx.code(sub.operator).strip()}`, which is Python control "
                          "flow on each operand; write it with & or | on tensors")
        if isinstance(sub, cst.UnaryOperation) and isinstance(sub.operator, cst.Not):
            raise Decline("the condition uses `not` inside, which is Python control flow")
        if isinstance(sub, cst.Comparison) and len(sub.comparisons) != 1:
            raise Decline("the condition chains comparisons, which Python evaluates with `and`")
        if isinstance(sub, cst.Comparison) and isinstance(
                sub.comparisons[0].operator, (cst.In, cst.NotIn, cst.Is, cst.IsNot)):
            raise Decline("the condition uses `in`/`is`, which has no element-wise tensor form here")
    effect = side_effect(ctx, test)
    if effect:
        raise Decline(f"the condition has a side effect (`{effect}`)")
    if zero_dim and not _zero_dim(ctx, test):
        raise Decline(f"fix cannot show that the condition `{ctx.code(test)}` is zero-dimensional, and "
                      "torch.where would broadcast its shape into the result")
    return test, negated


def _zero_dim(ctx: Context, node) -> bool:
    """Is the expression statically a 0-d tensor or a Python number (a full reduction, or a
    comparison / arithmetic of those)?"""
    cst = ctx.cst
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
        return _zero_dim(ctx, node.left) and _zero_dim(ctx, node.comparisons[0].comparator)
    if isinstance(node, cst.BinaryOperation):
        return _zero_dim(ctx, node.left) and _zero_dim(ctx, node.right)
    if isinstance(node, cst.UnaryOperation):
        return _zero_dim(ctx, node.expression)
    if isinstance(node, cst.Attribute):  # self.threshold: a number unless traced as a tensor
        return _dotted(ctx, node) is not None and _dotted(ctx, node).startswith("self.") \
            and not ctx.is_tensor_op(node)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        name = node.func.attr.value
        if name in FULL_REDUCTIONS and not node.args:
            return True
        if name in ("item",):
            return True
        if name in BOOLEAN_METHODS | ELEMENTWISE_FUNCTIONS and not node.args:
            return _zero_dim(ctx, node.func.value)
    return False


def _is_boolean(ctx: Context, node) -> bool:
    cst = ctx.cst
    if isinstance(node, cst.Comparison):
        return True
    if isinstance(node, cst.Call):
        return _call_name(cst, node) in BOOLEAN_METHODS
    return False


def _leading_with_comments(ctx: Context, statement) -> list:
    """The statement's own leading lines, then every comment inside it (the `if` line's, the
    arms'), each on a line of its own: the rewrite replaces the statement, not its comments."""
    cst = ctx.cst
    inner = [sub for sub in _walk(cst, statement) if isinstance(sub, cst.Comment)]
    own = {id(line.comment) for line in statement.leading_lines if line.comment is not None}
    positions = {id(c): ctx.positions.get(c) for c in inner}
    inner = sorted((c for c in inner if id(c) not in own),
                   key=lambda c: (positions[id(c)].start.line, positions[id(c)].start.column) if positions[id(c)] else (0, 0))
    return [*statement.leading_lines, *(cst.EmptyLine(comment=c) for c in inner)]


# -- the rewrites ----------------------------------------------------------------------------

class Rewrite:
    """One rewrite: `plan` finds the construct of a region and returns the edit, or raises
    Decline with the reason."""

    name = ""
    codes: tuple[str, ...] = ()

    def plan(self, ctx: Context, region) -> Edit:
        raise NotImplementedError


class GuardSideEffect(Rewrite):
    """`print(...)`, `logger.info(...)` and `warnings.warn(...)` statements in a compiled region
    are wrapped in `if not torch.compiler.is_compiling():`.

    Dynamo 2.13 breaks on print (GB0059), on `logging.Logger` methods (GB0291) and on
    `warnings.warn` (GB0007, the C builtin `_warnings.warn` is skipped). It evaluates
    `torch.compiler.is_compiling()` to the constant True while tracing and prunes the guarded
    branch without a break (measured: one graph, no break record). Eagerly the function returns
    False, so an eager run still prints, logs and warns; under torch.compile the message is not
    written. Declined where the call's value is used, where an argument has a side effect the
    guard would skip under compile, or where the file does not `import torch`.
    """

    name = "guard-side-effect"
    codes = ("SFX201", "SFX202", "SFX203")

    def _kind(self, ctx: Context, call) -> str | None:
        cst = ctx.cst
        func = call.func
        if isinstance(func, cst.Name) and func.value == "print":
            return "print"
        if isinstance(func, cst.Attribute):
            owner = _dotted(ctx, func.value) or ""
            if owner == "warnings" and func.attr.value == "warn":
                return "warnings.warn"
            if func.attr.value in LOGGER_METHODS | {"isEnabledFor"} and owner.split(".")[-1].lower() in (
                    "logger", "log", "_logger", "logging", "self.logger", "_log"):
                return "logging"
            if func.attr.value in LOGGER_METHODS and "log" in owner.lower():
                return "logging"
        if isinstance(func, cst.Name) and func.value == "warn":
            return "warnings.warn"
        return None

    def plan(self, ctx: Context, region) -> Edit:
        cst = ctx.cst
        calls = [c for c in ctx.at(region.line, region.col, cst.Call) if self._kind(ctx, c)]
        if not calls:
            found = ctx.at(region.line, region.col, cst.Call)
            what = f"`{ctx.code(found[0].func)}(...)`" if found else "the construct"
            raise Decline(f"{what} is not a print, logging or warnings.warn call; only those are guarded, "
                          "since skipping them under compile changes nothing but the output")
        call = calls[0]
        ctx.imports_torch()
        effect = next((side_effect(ctx, arg.value) for arg in call.args if side_effect(ctx, arg.value)), None)
        if effect:
            raise Decline(f"the argument `{effect}` has a side effect that the guard would skip under compile")
        parent = ctx.parent(call)
        if isinstance(parent, cst.If) and parent.test is call:  # if logger.isEnabledFor(...):
            test = cst.parse_expression(f"{GUARD} and {ctx.code(call)}")
            return Edit(parent, ("test", test), Outcome(
                ctx.path, region.code, region.line, region.col, self.name,
                summary=f"the `if {ctx.code(call)}` now also requires {GUARD}"))
        if not isinstance(parent, cst.Expr):
            raise Decline(f"the value of `{ctx.code(call.func)}(...)` is used, so the call cannot be skipped")
        line = ctx.parent(parent)
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
            raise Decline("the call shares its line with other statements (`;`)")
        guarded = cst.If(
            test=cst.parse_expression(GUARD),
            body=cst.IndentedBlock(body=[line.with_changes(leading_lines=[])]),
            leading_lines=line.leading_lines,
        )
        return Edit(line, guarded, Outcome(ctx.path, region.code, region.line, region.col, self.name,
                                           summary=f"`{ctx.code(call.func)}(...)` guarded by `if {GUARD}:`"))


class AssertAsync(Rewrite):
    """`if <tensor condition>: raise E(...)` becomes `torch._assert_async(<negated condition>, msg)`.

    Dynamo 2.13 breaks on the `if` (GB0170, data-dependent branching). `torch._assert_async`
    on a single-element tensor traces into the graph without a break (measured);
    `torch._check` on a tensor is a TypeError under compile and `torch._assert` breaks (GB0033),
    so neither is used. The `if` needs a single-element condition eagerly already, so the
    assertion accepts what the `if` accepted. On the success path the outputs are unchanged;
    when the check fails a RuntimeError is raised instead of E (message kept when it is a plain
    string). Declined for an `elif`/`else`, a body that does more than raise, and conditions
    that are Python control flow (`and`, `or`, chained comparisons) or have side effects.
    """

    name = "assert-async"
    codes = ("SFX101",)

    def matches(self, ctx: Context, statement) -> bool:
        cst = ctx.cst
        return isinstance(statement, cst.If) and len(statement.body.body) == 1 and isinstance(
            statement.body.body[0], cst.SimpleStatementLine) and len(statement.body.body[0].body) == 1 \
            and isinstance(statement.body.body[0].body[0], cst.Raise)

    def plan(self, ctx: Context, region, statement=None) -> Edit:
        cst = ctx.cst
        statement = statement or _if_at(ctx, region)
        raise_ = statement.body.body[0].body[0]
        if statement.orelse is not None:
            raise Decline("the `if` that raises has an elif/else branch")
        if _is_elif(ctx, statement):
            raise Decline("the `if` that raises is an elif of a larger chain")
        if raise_.exc is None:
            raise Decline("the branch re-raises the current exception")
        test, negated = tensor_condition(ctx, statement.test, zero_dim=False)
        exc = raise_.exc
        exc_name = ctx.code(exc.func if isinstance(exc, cst.Call) else exc)
        if isinstance(exc, cst.Call) and exc.args and isinstance(exc.args[0].value, cst.SimpleString):
            message = ctx.code(exc.args[0].value)  # the literal as written
        else:
            message = repr(f"{exc_name}: {ctx.code(statement.test)}")
        condition = ctx.code(test) if negated else f"torch.logical_not({ctx.code(test)})"
        ctx.imports_torch()
        new = cst.parse_statement(f"torch._assert_async({condition}, {message})\n")
        new = new.with_changes(leading_lines=_leading_with_comments(ctx, statement))
        return Edit(statement, new, Outcome(ctx.path, region.code, region.line, region.col, self.name,
                                            summary=f"`if ...: raise {exc_name}` became torch._assert_async"))


class SelectWithWhere(Rewrite):
    """A data-dependent `if`/`else` (or a ternary) whose arms only assign the same names from
    side-effect-free element-wise tensor expressions of the same operands becomes
    `name = torch.where(cond, then_value, else_value)`; an `if` without `else` keeps the old
    value (`x = torch.where(cond, new_x, x)`) when the arm reads the name it assigns.

    Dynamo 2.13 breaks on the `if` (GB0170); `torch.where(c, a, b)` with a tensor condition
    traces without a break (measured, and listed among what does not break). Both arms are
    computed, so they must be safe to compute: element-wise ops (no module or function calls,
    no indexing, no side effects) over the same operands have the same broadcast shape, and a
    zero-dimensional condition selects a whole arm, so the result equals the arm the `if` took.
    A condition that is not visibly 0-d (a full reduction, or a comparison of one with a number)
    is declined: its shape would be broadcast into the result. Modules and functions in an arm
    are declined rather than rewritten with torch.cond, whose branches must return matching
    shapes and dtypes, which cannot be shown from the source.
    """

    name = "torch-where"
    codes = ("SFX101",)

    def plan(self, ctx: Context, region) -> Edit:
        cst = ctx.cst
        ternaries = [n for n in ctx._by_start.get((region.line, region.col), ())
                     if isinstance(ctx.parent(n), cst.IfExp) and ctx.parent(n).test is n]
        if ternaries:
            return self._ternary(ctx, region, ctx.parent(ternaries[0]))
        statement = _if_at(ctx, region)
        if _is_elif(ctx, statement):
            raise Decline("the branch is an elif of a larger chain")
        if isinstance(statement.orelse, cst.If):
            raise Decline("the `if` has an elif, more than two arms")
        then = self._assignments(ctx, statement.body.body, "if branch")
        other = self._assignments(ctx, statement.orelse.body.body, "else branch") if statement.orelse else None
        test, negated = tensor_condition(ctx, statement.test, zero_dim=True)
        cond = ctx.code(test)
        if not _is_boolean(ctx, test):
            cond = f"({cond}).bool()" if not isinstance(test, (cst.Name, cst.Attribute, cst.Call)) else f"{cond}.bool()"
        if other is None:
            other = []
            for name, value in then:
                if name not in elementwise_leaves(ctx, value, "if branch"):
                    raise Decline(f"`{name}` is assigned only when the condition holds, and its value otherwise "
                                  "is not known to have the same shape")
                other.append((name, cst.Name(name)))
        if [n for n, _ in then] != [n for n, _ in other]:
            raise Decline(f"the arms assign different names ({', '.join(n for n, _ in then)} / "
                          f"{', '.join(n for n, _ in other)})")
        assigned = {n for n, _ in then}
        lines = []
        for (name, a), (_, b) in zip(then, other):
            leaves_a = elementwise_leaves(ctx, a, "if branch")
            leaves_b = elementwise_leaves(ctx, b, "else branch")
            if statement.orelse is not None or len(then) > 1:
                chained = (leaves_a | leaves_b) & (assigned - {name})
                if chained:
                    raise Decline(f"an arm reads `{sorted(chained)[0]}`, which the same branch assigns")
            if leaves_a != leaves_b:
                raise Decline(f"the arms for `{name}` read different operands ({', '.join(sorted(leaves_a)) or 'none'}"
                              f" / {', '.join(sorted(leaves_b)) or 'none'}), whose shapes torch.where would "
                              "broadcast together")
            if not (ctx.is_tensor_op(a) or ctx.is_tensor_op(b)):
                raise Decline(f"fix cannot show that `{name}` is a tensor in either arm")
            if negated:
                a, b = b, a
            lines.append(f"{name} = torch.where({cond}, {_arg(ctx, a)}, {_arg(ctx, b)})\n")
        ctx.imports_torch()
        new = [cst.parse_statement(text) for text in lines]
        new[0] = new[0].with_changes(leading_lines=_leading_with_comments(ctx, statement))
        return Edit(statement, cst.FlattenSentinel(new), Outcome(
            ctx.path, region.code, region.line, region.col, self.name,
            summary=f"`if`/`else` became torch.where for {', '.join(n for n, _ in then)}"))

    def _assignments(self, ctx: Context, body, arm: str) -> list[tuple[str, Any]]:
        cst = ctx.cst
        found = []
        for statement in body:
            if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1
                    and isinstance(statement.body[0], cst.Assign) and len(statement.body[0].targets) == 1
                    and isinstance(statement.body[0].targets[0].target, cst.Name)):
                what = ctx.code(statement).strip().splitlines()[0]
                if isinstance(statement, cst.SimpleStatementLine) and isinstance(statement.body[0], cst.Return):
                    raise Decline(f"the {arm} returns early (`{what}`), which has no tensor form")
                raise Decline(f"the {arm} does more than assign names (`{what}`)")
            assign = statement.body[0]
            name = assign.targets[0].target.value
            if name in (n for n, _ in found):
                raise Decline(f"the {arm} assigns `{name}` twice")
            effect = side_effect(ctx, assign.value)
            if effect:
                raise Decline(f"the {arm} has a side effect (`{effect}`)")
            elementwise_leaves(ctx, assign.value, arm)
            found.append((name, assign.value))
        return found

    def _ternary(self, ctx: Context, region, ternary) -> Edit:
        cst = ctx.cst
        test, negated = tensor_condition(ctx, ternary.test, zero_dim=True)
        a, b = ternary.body, ternary.orelse
        effect = side_effect(ctx, a) or side_effect(ctx, b)
        if effect:
            raise Decline(f"an arm has a side effect (`{effect}`)")
        leaves_a = elementwise_leaves(ctx, a, "if value")
        leaves_b = elementwise_leaves(ctx, b, "else value")
        if leaves_a != leaves_b:
            raise Decline(f"the two values read different operands ({', '.join(sorted(leaves_a)) or 'none'} / "
                          f"{', '.join(sorted(leaves_b)) or 'none'}), whose shapes torch.where would broadcast")
        if not (ctx.is_tensor_op(a) or ctx.is_tensor_op(b)):
            raise Decline("fix cannot show that the ternary's values are tensors")
        ctx.imports_torch()
        cond = ctx.code(test) if _is_boolean(ctx, test) else f"({ctx.code(test)}).bool()"
        if negated:
            a, b = b, a
        new = cst.parse_expression(f"torch.where({cond}, {_arg(ctx, a)}, {_arg(ctx, b)})")
        new = new.with_changes(lpar=ternary.lpar, rpar=ternary.rpar)
        return Edit(ternary, new, Outcome(ctx.path, region.code, region.line, region.col, self.name,
                                          summary="the ternary became torch.where"))


def _arg(ctx: Context, node) -> str:
    return ctx.code(node.with_changes(lpar=[], rpar=[])) if hasattr(node, "lpar") else ctx.code(node)


def _if_at(ctx: Context, region):
    """The `if` statement whose condition starts at the region's position."""
    cst = ctx.cst
    for node in ctx._by_start.get((region.line, region.col), ()):
        while isinstance(ctx.parent(node), cst.UnaryOperation) and isinstance(ctx.parent(node).operator, cst.Not):
            node = ctx.parent(node)  # `if not t:` is reported at `t`
        parent = ctx.parent(node)
        if isinstance(parent, cst.If) and parent.test is node:
            return parent
        if isinstance(parent, cst.While) and parent.test is node:
            raise Decline("the condition is a `while` loop's, and a data-dependent loop has no tensor form here")
    for node in ctx._by_start.get((region.line, region.col), ()):
        parent = ctx.parent(node)
        while parent is not None and not isinstance(parent, cst.BaseStatement):
            parent = ctx.parent(parent)
        if isinstance(parent, cst.If):
            raise Decline("the tensor is tested inside a larger condition (`and`/`or` or a call), "
                          "which is Python control flow")
        break
    raise Decline("the break is not at the condition of an `if` statement in this file "
                  "(it is reached through a call)")


def _is_elif(ctx: Context, statement) -> bool:
    parent = ctx.parent(statement)
    return isinstance(parent, ctx.cst.If) and parent.orelse is statement


class KeepZeroDim(Rewrite):
    """`t.item()` / `float(t)` whose value is only used in tensor arithmetic or comparisons
    becomes `t.detach()`: the 0-d tensor takes the Python number's place.

    Dynamo 2.13 breaks on `.item()` and `float()` of a tensor (GB0124) unless
    capture_scalar_outputs is set; arithmetic between a tensor and a 0-d tensor traces without a
    break (measured). `.detach()` keeps the number out of autograd as `.item()` did, and a 0-d
    tensor takes part in type promotion like a Python number (it does not change the other
    operand's dtype within a category), so each tensor result has the same values. A use counts
    only where the analysis traced a tensor operation at exactly the enclosing expression's span
    (through +, -, *, / and comparisons with numbers); any other use (an `if`, a Python call such
    as `max()` or `range()`, an f-string, a return, a list, another name) is declined. A value
    that is not visibly 0-d (a full reduction) is reshaped to `()` so that it broadcasts like a
    number. `int()` and `bool()` are declined: they change the value (truncation, truth).
    """

    name = "keep-0d-tensor"
    codes = ("SFX102",)

    def plan(self, ctx: Context, region) -> Edit:
        cst = ctx.cst
        for call in ctx.at(region.line, region.col, cst.Call):
            func = call.func
            if isinstance(func, cst.Attribute) and func.attr.value == "item" and not call.args:
                tensor = func.value
                break
            if isinstance(func, cst.Name) and func.value == "float" and len(call.args) == 1:
                tensor = call.args[0].value
                break
            if isinstance(func, cst.Name) and func.value in ("int", "bool"):
                raise Decline(f"`{func.value}()` changes the value (truncation, truth), so the 0-d tensor "
                              "cannot stand in for it")
        else:
            raise Decline("the conversion is not written here (it is reached through a call or an "
                          "implicit conversion)")
        if side_effect(ctx, tensor):
            raise Decline(f"the converted expression has a side effect (`{side_effect(ctx, tensor)}`)")
        self._check_uses(ctx, call)
        if isinstance(tensor, (cst.Name, cst.Attribute)) and _mutated_in_place(ctx, tensor):
            raise Decline(f"`{ctx.code(tensor)}` is changed in place in this file, and the 0-d tensor (which shares "
                          "its storage) would see the change where the number did not")
        replacement = f"{ctx.code(tensor)}.detach()"
        if isinstance(tensor, (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison)) and not tensor.lpar:
            replacement = f"({ctx.code(tensor)}).detach()"
        if not _zero_dim(ctx, tensor):
            replacement += ".reshape(())"
        new = cst.parse_expression(replacement).with_changes(lpar=call.lpar, rpar=call.rpar)
        return Edit(call, new, Outcome(ctx.path, region.code, region.line, region.col, self.name,
                                       summary=f"`{ctx.code(call)}` kept as the 0-d tensor `{replacement}`"))

    def _check_uses(self, ctx: Context, call) -> None:
        self._check_value(ctx, call, f"`{ctx.code(call)}`", 0)

    def _check_value(self, ctx: Context, node, what: str, depth: int) -> None:
        """Every path from `node` up must reach a traced tensor operation through arithmetic and
        comparisons, or a plain `name = ...` whose every use does (followed three names deep)."""
        cst = ctx.cst
        current = node
        while True:
            parent = ctx.parent(current)
            if isinstance(parent, cst.ComparisonTarget):
                parent = ctx.parent(parent)
            if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation)) or (
                    isinstance(parent, cst.Comparison) and len(parent.comparisons) == 1):
                if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not):
                    raise Decline(f"{what} is negated with `not`, which needs a Python truth value")
                if ctx.is_tensor_op(parent):
                    return
                current = parent
                continue
            if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(
                    parent.targets[0].target, cst.Name) and parent.value is current and depth < 3:
                self._check_name(ctx, parent, parent.targets[0].target.value, depth)
                return
            raise Decline(f"{what} is {_describe_use(ctx, parent, current)}, not only tensor arithmetic, so "
                          "it must stay a Python number")

    def _check_name(self, ctx: Context, assign, name: str, depth: int) -> None:
        scope = ctx.scopes.get(assign)
        if scope is None or len(scope.assignments[name]) != 1:
            raise Decline(f"`{name}` is assigned more than once, so fix cannot follow its uses")
        for child_scope in _child_scopes(ctx, scope):
            if name in child_scope.accesses:
                raise Decline(f"`{name}` is used in a nested function or lambda")
        for access in scope.accesses[name]:
            if ctx.scopes.get(access.node) is not scope:
                raise Decline(f"`{name}` is used in a nested function or lambda")
            self._check_value(ctx, access.node, f"`{name}`", depth + 1)


def _mutated_in_place(ctx: Context, node) -> bool:
    """Is the attribute or name written to in place anywhere in the file (`.mul_(...)`,
    `[...] =`, `+=`, `.data =`, `.copy_`)? Conservative: by its last name, in any class."""
    import re

    last = node.attr.value if isinstance(node, ctx.cst.Attribute) else node.value
    pattern = re.compile(rf"\b{re.escape(last)}(\.data)?(\[[^\]]*\])?\s*(\.\w+_\(|[-+*/@%]=|=(?!=))")
    source = ctx.module.code
    for match in pattern.finditer(source):
        if match.group(3).startswith("=") and not (match.group(1) or match.group(2)):
            continue  # `self.decay = ...` binds a new object; the old tensor is unchanged
        return True
    return False


def _skip_parens(ctx: Context, node):
    return ctx.parent(node)


def _child_scopes(ctx: Context, scope) -> list:
    return [s for s in set(ctx.scopes.values()) if s is not None and getattr(s, "parent", None) is scope]


def _describe_use(ctx: Context, parent, node) -> str:
    cst = ctx.cst
    if isinstance(parent, cst.If) or isinstance(parent, cst.While):
        return "tested by an `if`/`while`"
    if isinstance(parent, cst.Arg):
        call = ctx.parent(parent)
        return f"passed to `{ctx.code(call.func)}()`" if isinstance(call, cst.Call) else "passed as an argument"
    if isinstance(parent, (cst.FormattedStringExpression,)):
        return "formatted into a string"
    if isinstance(parent, cst.Return):
        return "returned"
    if isinstance(parent, (cst.Element, cst.List, cst.Tuple, cst.Dict, cst.DictElement)):
        return "put in a container"
    if isinstance(parent, cst.Assign):
        return "assigned to another name"
    if isinstance(parent, (cst.BinaryOperation, cst.Comparison, cst.UnaryOperation)):
        return f"used in `{ctx.code(parent)}`, which is not traced as a tensor operation"
    return f"used in `{ctx.code(parent).strip()[:60]}`"


REWRITES: dict[str, list[Rewrite]] = {}
for _rewrite in (GuardSideEffect(), AssertAsync(), SelectWithWhere(), KeepZeroDim()):
    for _code in _rewrite.codes:
        REWRITES.setdefault(_code, []).append(_rewrite)


def _plan_region(ctx: Context, region) -> Edit:
    rewrites = REWRITES.get(region.code)
    if not rewrites:
        raise Decline(f"fix has no rewrite for {region.code}")
    if region.code == "SFX101":
        try:
            statement = _if_at(ctx, region)
        except Decline:
            statement = None
        if statement is not None and AssertAsync().matches(ctx, statement):
            return AssertAsync().plan(ctx, region, statement)
        return SelectWithWhere().plan(ctx, region)
    return rewrites[0].plan(ctx, region)


# -- one file ---------------------------------------------------------------------------------

def _regions(analysis, path: str, select: tuple[str, ...] | None):
    """Each break once (by code and place), in source order."""
    seen = set()
    for graph in analysis.graphs:
        for region in graph.regions:
            key = (region.code, region.line, region.col)
            if key in seen or (select and not region.code.startswith(select)):
                continue
            seen.add(key)
            yield region


def plan_file(source: str, path: str, analysis, select: tuple[str, ...] | None = None,
              display: str | None = None) -> tuple[Context | None, list[Edit], list[Outcome]]:
    """The edits fix would make in one file and the outcome of every break."""
    path = os.path.abspath(path)
    display = display or path
    outcomes: list[Outcome] = []
    edits: list[Edit] = []
    regions = sorted(_regions(analysis, path, select), key=lambda r: (r.line, r.col, r.code))
    if not regions:
        return None, edits, outcomes
    ctx = Context(source, display, tensor_spans(analysis, path))
    taken: list[Edit] = []
    for region in regions:
        try:
            if os.path.abspath(region.construct_file) != path:
                raise Decline(f"the construct is in {os.path.basename(region.construct_file)}:"
                              f"{region.construct_line}; fix rewrites a construct only in its own file")
            ctx.needs_import_torch = False
            edit = _plan_region(ctx, region)
            edit.needs_torch = ctx.needs_import_torch
            span = ctx.span(edit.node)
            outer = next((other for other in taken if _overlaps(span, ctx.span(other.node))), None)
            if outer is not None and outer.outcome.rewrite == GuardSideEffect.name == edit.outcome.rewrite \
                    and _contains(ctx.span(outer.node), span):
                outcomes.append(Outcome(display, region.code, region.line, region.col, edit.outcome.rewrite,
                                        summary=f"inside the guard added at line {outer.outcome.line}"))
                continue
            if outer is not None:
                raise Decline("it overlaps another rewrite in this run; run fix again")
            taken.append(edit)
            edits.append(edit)
            outcomes.append(edit.outcome)
        except Decline as decline:
            outcomes.append(Outcome(display, region.code, region.line, region.col, reason=str(decline)))
    return ctx, edits, outcomes


def _contains(outer, inner) -> bool:
    return (outer[0], outer[1]) <= (inner[0], inner[1]) and (inner[2], inner[3]) <= (outer[2], outer[3])


def _overlaps(a, b) -> bool:
    return not ((a[2], a[3]) <= (b[0], b[1]) or (b[2], b[3]) <= (a[0], a[1]))


def apply_edits(ctx: Context, edits: list[Edit]) -> str:
    import libcst as cst

    replacements = {id(edit.node): edit.replacement for edit in edits}

    class Apply(cst.CSTTransformer):
        def on_leave(self, original_node, updated_node):
            replacement = replacements.get(id(original_node))
            if replacement is None:
                return updated_node
            if isinstance(replacement, tuple):  # ("field", value): change one child
                return updated_node.with_changes(**{replacement[0]: replacement[1]})
            return replacement

    module = ctx.module.visit(Apply())
    if any(edit.needs_torch for edit in edits):
        module = _add_import_torch(cst, module)
    return module.code


def _add_import_torch(cst, module):
    """`import torch` before the first top-level import of a torch module (`import torch.nn as
    nn`), else after the last top-level import, else at the top."""
    body = list(module.body)
    imports = [i for i, s in enumerate(body) if isinstance(s, cst.SimpleStatementLine)
               and any(isinstance(small, (cst.Import, cst.ImportFrom)) for small in s.body)]
    torch_imports = [i for i in imports if "torch" in module.code_for_node(body[i])
                     and "__future__" not in module.code_for_node(body[i])]
    statement = cst.parse_statement("import torch\n")
    if torch_imports:
        at = torch_imports[0]
        statement = statement.with_changes(leading_lines=body[at].leading_lines)
        body[at] = body[at].with_changes(leading_lines=[])
    elif imports:
        at = imports[-1] + 1
    else:
        at = 0
    body.insert(at, statement)
    return module.with_changes(body=body)


def fix_source(source: str, path: str, options=None, select: tuple[str, ...] | None = None,
               display: str | None = None) -> FileFix:
    from .analysis import analyze

    analysis = analyze(source, path, options=options)
    ctx, edits, outcomes = plan_file(source, path, analysis, select, display)
    fixed = apply_edits(ctx, edits) if edits else source
    return FileFix(display or path, source, fixed, outcomes)


def has_rewrite(region, graph, source: str | None = None) -> bool:
    """Does `fix` have a rewrite for this region (this occurrence, not its code)?

    `graph` is the region's Graph (the analysis result of its file); `source` that file's text,
    read from `graph.file` when not given. Cheap enough for the JSON and HTML output: imports
    libcst lazily and says False where libcst is not installed.
    """
    if region.code not in REWRITES:
        return False
    try:
        import libcst  # noqa: F401
    except ImportError:
        return False
    path = os.path.abspath(graph.file)
    source = source if source is not None else _cached_source(path)
    if source is None or os.path.abspath(region.construct_file) != path:
        return False
    try:
        ctx = _cached_context(source, path, graph)
        _plan_region(ctx, region)
        return True
    except Decline:
        return False
    except Exception:  # noqa: BLE001 - a JSON field must never crash the graph command
        return False


_CONTEXTS: dict[tuple[str, int], Context] = {}


def _cached_context(source: str, path: str, graph) -> Context:
    from .analysis import FileAnalysis

    key = (source, id(graph))
    if key not in _CONTEXTS:
        _CONTEXTS.clear()  # one file at a time
        _CONTEXTS[key] = Context(source, path, tensor_spans(FileAnalysis(path, [], [graph]), path))
    return _CONTEXTS[key]


_SOURCES: dict[str, str | None] = {}


def _cached_source(path: str) -> str | None:
    if path not in _SOURCES:
        try:
            with open(path, encoding="utf-8") as handle:
                _SOURCES[path] = handle.read()
        except (OSError, UnicodeDecodeError):
            _SOURCES[path] = None
    return _SOURCES[path]


# -- command line -----------------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or directories to fix")
    parser.add_argument("--diff", action="store_true", help="print a unified diff, change nothing")
    parser.add_argument("--select", default="", help="only these codes or prefixes (comma-separated)")
    parser.add_argument("--fullgraph", action="store_true", help="as torch.compile(fullgraph=True)")
    parser.add_argument("--capture-scalar-outputs", action="store_true")
    parser.add_argument("--capture-dynamic-output-shape-ops", action="store_true")
    parser.add_argument("--quiet", action="store_true", help="do not list what was fixed or declined")


def _python_files(paths: list[str]) -> list[str]:
    found = []
    for path in paths:
        if os.path.isfile(path):
            found.append(path)
        for directory, subdirs, files in os.walk(path):
            subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
            found.extend(os.path.join(directory, f) for f in sorted(files) if f.endswith(".py"))
    return found


def run(args: argparse.Namespace) -> int:
    """Fix (or diff) every file; 0 when nothing was left to do, 1 when something was rewritten
    or declined, 2 when a file could not be read."""
    try:
        import libcst  # noqa: F401
    except ImportError:
        print("fix needs libcst: pip install 'libcst>=1.1,<2'", file=sys.stderr)
        return 2
    from .config import Options

    options = Options(fullgraph=getattr(args, "fullgraph", False),
                      capture_scalar_outputs=getattr(args, "capture_scalar_outputs", False),
                      capture_dynamic_output_shape_ops=getattr(args, "capture_dynamic_output_shape_ops", False))
    select = tuple(code.strip() for code in (args.select or "").split(",") if code.strip()) or None
    status = 0
    for path in _python_files(args.paths):
        try:
            with open(path, encoding="utf-8", newline="") as handle:
                source = handle.read()
        except (OSError, UnicodeDecodeError) as exc:
            print(f"cannot read {path}: {exc}", file=sys.stderr)
            status = 2
            continue
        try:
            result = fix_source(source, path, options, select, display=path)
        except Exception as exc:  # noqa: BLE001 - one bad file must not stop the others
            print(f"cannot fix {path}: {type(exc).__name__}: {exc}", file=sys.stderr)
            status = 2
            continue
        if not args.quiet:
            for outcome in result.outcomes:
                print(outcome.describe(), file=sys.stderr)
        if result.outcomes:
            status = max(status, 1)
        if not result.changed:
            continue
        if args.diff:
            name = os.path.relpath(path) if not os.path.relpath(path).startswith("..") else path
            sys.stdout.writelines(difflib.unified_diff(
                source.splitlines(True), result.fixed.splitlines(True), f"a/{name}", f"b/{name}"))
        else:
            with open(path, "w", encoding="utf-8", newline="") as handle:
                handle.write(result.fixed)
    return status
