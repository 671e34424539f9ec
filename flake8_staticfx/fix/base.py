"""What every rewrite shares: the outcome records, the file's tree with the analysis' tensor
spans, and the static checks (side effects, element-wise shapes, tensor conditions)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from ..fixable import MUTATING_METHODS

GUARD = "not torch.compiler.is_compiling()"


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
    removed: tuple = ()  # statements right after `node` that the replacement takes the place of too


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

    def __init__(self, source: str, path: str, tensor_spans: set[tuple[int, int, int, int]],
                 tensor_attributes: frozenset[str] = frozenset()):
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
        self.tensor_attributes = tensor_attributes  # `self.<path>` the analysis read as a tensor
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
    """(line, col, end_line, end_col) of every traced tensor operation written in `path` (not
    the arithmetic on shapes and `.item()` numbers that the graph draws as fx does)."""
    spans = set()
    for graph in analysis.graphs:
        for node in graph.nodes:
            span = node.meta.get("span")
            if span is None or node.op in ("placeholder", "output") or span.file != path \
                    or node.meta.get("on_python_numbers") or _is_truth_test(node):
                continue
            spans.add((span.line, span.col, span.end_line, span.end_col))
    return spans


def tensor_attributes(analysis) -> frozenset[str]:
    """The attribute paths (`decay`, `block.scale`) the analysis fetched as tensors (get_attr),
    in any graph: a graph fetches each once, so its other reads have no node of their own."""
    return frozenset(node.target for graph in analysis.graphs for node in graph.nodes if node.op == "get_attr")


def _is_truth_test(node) -> bool:
    """The `bool(...)` node of a branch: Python testing a value for truth (a tensor, or a numpy
    array traced as one), not a tensor operation the expression computes."""
    return node.op == "call_function" and node.target == "bool"


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
    if isinstance(test, cst.Call) and isinstance(test.func, cst.Name) and test.func.value in ("any", "all"):
        raise Decline(f"the condition calls Python's `{test.func.value}()`, which tests each element for truth in "
                      "Python; write it with the tensor's own .any()/.all()")
    if not _traced_tensor(ctx, test):
        raise Decline(f"fix cannot show that the condition `{ctx.code(test)}` is a tensor (a numpy array "
                      "or a Python value cannot be a torch.where or torch._assert_async condition)")
    if zero_dim and not _zero_dim(ctx, test):
        raise Decline(f"fix cannot show that the condition `{ctx.code(test)}` is zero-dimensional, and "
                      "torch.where would broadcast its shape into the result")
    return test, negated


def single_assignment(ctx: Context, name) -> Any:
    """The value of the one plain `name = value` that binds this name in a function, or None
    (a parameter, a name bound twice or in a loop target, a global)."""
    from libcst.metadata import FunctionScope

    cst = ctx.cst
    scope = ctx.scopes.get(name)
    if scope is None or not isinstance(scope, FunctionScope):
        return None
    assignments = list(scope.assignments[name.value])
    if len(assignments) != 1:
        return None
    target = ctx.parent(assignments[0].node)
    assign = ctx.parent(target) if isinstance(target, cst.AssignTarget) else None
    if not (isinstance(assign, cst.Assign) and len(assign.targets) == 1 and assign.targets[0] is target):
        return None
    return assign.value


def _traced_tensor(ctx: Context, node, depth: int = 0) -> bool:
    """Did the analysis trace a tensor operation at this expression, or at the one value of the
    local name it is? (The branch's own truth test does not count: see tensor_spans.)"""
    if ctx.is_tensor_op(node):
        return True
    if isinstance(node, ctx.cst.Name) and depth < 3:
        value = single_assignment(ctx, node)
        return value is not None and _traced_tensor(ctx, value, depth + 1)
    return False


def _zero_dim(ctx: Context, node, depth: int = 0) -> bool:
    """Is the expression statically a 0-d tensor or a Python number (a full reduction, or a
    comparison / arithmetic of those, or a local name assigned once from one)?"""
    cst = ctx.cst
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.Name):
        value = single_assignment(ctx, node) if depth < 3 else None
        return value is not None and _zero_dim(ctx, value, depth + 1)
    if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
        return _zero_dim(ctx, node.left, depth) and _zero_dim(ctx, node.comparisons[0].comparator, depth)
    if isinstance(node, cst.BinaryOperation):
        return _zero_dim(ctx, node.left, depth) and _zero_dim(ctx, node.right, depth)
    if isinstance(node, cst.UnaryOperation):
        return _zero_dim(ctx, node.expression, depth)
    if isinstance(node, cst.Attribute):  # self.threshold
        return number_attribute(ctx, node)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        name = node.func.attr.value
        if name in FULL_REDUCTIONS and not node.args:
            return True
        if name in ("item",):
            return True
        if name in BOOLEAN_METHODS | ELEMENTWISE_FUNCTIONS and not node.args:
            return _zero_dim(ctx, node.func.value, depth)
    return False


def number_attribute(ctx: Context, node) -> bool:
    """Is `self.<path>` one the analysis read as something other than a tensor? It must have
    evaluated this very read (the operation around it is traced) and fetched that path as a
    tensor nowhere in the file."""
    cst = ctx.cst
    dotted = _dotted(ctx, node) if isinstance(node, cst.Attribute) else None
    if dotted is None or not dotted.startswith("self.") or dotted[len("self."):] in ctx.tensor_attributes:
        return False
    parent = ctx.parent(node)
    if isinstance(parent, (cst.Arg, cst.ComparisonTarget)):
        parent = ctx.parent(parent)
    return parent is not None and ctx.is_tensor_op(parent)


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

    def where(comment):
        pos = ctx.positions.get(comment)
        return (pos.start.line, pos.start.column) if pos else (0, 0)

    inner = sorted((c for c in inner if id(c) not in own), key=where)
    return [*statement.leading_lines, *(cst.EmptyLine(comment=c) for c in inner)]


# -- `if` statements at a region --------------------------------------------------------------

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


# -- the rewrite interface ------------------------------------------------------------------

class Rewrite:
    """One rewrite: `plan` finds the construct of a region and returns the edit, or raises
    Decline with the reason."""

    name = ""
    codes: tuple[str, ...] = ()

    def plan(self, ctx: Context, region) -> Edit:
        raise NotImplementedError
