"""What every rewrite shares: the outcome records, the file's tree with the analysis' tensor
spans, and the static checks (side effects, element-wise shapes, tensor conditions)."""
from __future__ import annotations

import difflib
import os
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


class OtherForm(Decline):
    """A Decline saying the construct is not the form the rewrite handles (another rewrite of
    the same code may handle it; its own reason is the better one to report)."""


@dataclass
class Edit:
    """Replace `node` (a node of the wrapped module) by `replacement` (a node or a sentinel)."""

    node: Any
    replacement: Any  # None: the node is kept (the edit only adds module_lines)
    outcome: Outcome
    needs_torch: bool = False  # the replacement names `torch`, which the file does not bind
    removed: tuple = ()  # statements right after `node` that the replacement takes the place of too
    module_lines: tuple[str, ...] = ()  # statements the edit needs after the module's imports (once each)


@dataclass
class FileFix:
    path: str
    source: str
    fixed: str
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.fixed != self.source

    def diff(self) -> str:
        """A unified diff from the source to the fixed text, the path relative to the current
        directory when inside it."""
        relative = os.path.relpath(self.path)
        name = self.path if relative.startswith("..") else relative
        return "".join(difflib.unified_diff(self.source.splitlines(True), self.fixed.splitlines(True),
                                            f"a/{name}", f"b/{name}"))


# -- the tree and what the analysis knows about it --------------------------------------------

class ParsedSource:
    """One file's CST with positions, parents and scopes: what libcst takes seconds to resolve
    on a long file, kept apart from what one graph knows so that a file's graphs share it."""

    def __init__(self, source: str):
        import libcst as cst
        from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider, ScopeProvider

        self.wrapper = MetadataWrapper(cst.parse_module(source))
        self.positions = self.wrapper.resolve(PositionProvider)
        self.parents = self.wrapper.resolve(ParentNodeProvider)
        self.scopes = self.wrapper.resolve(ScopeProvider)
        self.by_start: dict[tuple[int, int], list[Any]] = {}
        for node, pos in self.positions.items():
            self.by_start.setdefault((pos.start.line, pos.start.column), []).append(node)


class Context:
    """A file's parsed CST with what one analysis of it knows: the graph nodes traced at each
    span and the attributes read as tensors."""

    def __init__(self, source: str, path: str, traced: dict[tuple[int, int, int, int], list],
                 tensor_attributes: frozenset[str] = frozenset(), parsed: ParsedSource | None = None):
        import libcst as cst

        parsed = parsed or ParsedSource(source)
        self.cst = cst
        self.path = path
        self.parsed = parsed
        self.module = parsed.wrapper.module
        self.positions = parsed.positions
        self.parents = parsed.parents
        self.scopes = parsed.scopes
        self.traced = traced  # span -> the graph nodes traced there (one per graph and loop iteration)
        self.tensor_attributes = tensor_attributes  # `self.<path>` the analysis read as a tensor
        self.needs_import_torch = False
        self._by_start = parsed.by_start

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
        return self.span(node) in self.traced

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


def traced_nodes(analysis, path: str) -> dict[tuple[int, int, int, int], list]:
    """The graph nodes of every traced tensor operation written in `path`, by (line, col,
    end_line, end_col) (not the arithmetic on shapes and `.item()` numbers that the graph
    draws as fx does)."""
    traced: dict[tuple[int, int, int, int], list] = {}
    for graph in analysis.graphs:
        for node in graph.nodes:
            span = node.origin.span
            if span is None or node.op in ("placeholder", "output") or span.file != path \
                    or node.meta.get("on_python_numbers") or _is_truth_test(node):
                continue
            traced.setdefault((span.line, span.col, span.end_line, span.end_col), []).append(node)
    return traced


# Element-wise Python operators as the graph records them: the result has the operands' broadcast shape.
ELEMENTWISE_OPERATORS = frozenset(f"operator.{name}" for name in (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "neg", "pos", "abs", "lt", "le", "gt", "ge",
    "eq", "ne", "and_", "or_", "xor", "invert"))
# Reductions over one dimension that return (values, indices), the dimension defaulting to the last.
DIM_REDUCTIONS = frozenset({"kthvalue", "mode", "median", "max", "min"})


def node_rank(node, depth: int = 0) -> int | None:
    """The number of dimensions of a traced value, where the graph shows it (a full reduction,
    `.flatten()`, a one-dimension reduction or an integer index of a value of known rank, an
    element-wise op of values of known rank or Python numbers), else None."""
    if depth > 40 or node.op not in ("call_method", "call_function") or not isinstance(node.target, str):
        return None
    target, args, kwargs = node.target, node.args, node.kwargs
    if target == "getattr" and len(args) == 2 and args[1] in ("values", "indices"):
        return _tuple_rank(args[0], depth)
    if target == "operator.getitem" and len(args) == 2 and isinstance(args[1], int) and _ranked(args[0]):
        tuple_rank = _tuple_rank(args[0], depth) if args[1] in (0, 1) else None
        if tuple_rank is not None:
            return tuple_rank
        rank = node_rank(args[0], depth + 1)
        return rank - 1 if rank else None
    if target in ELEMENTWISE_OPERATORS:
        if target in ("operator.eq", "operator.ne") and any(a == "<static>" for a in args):
            return None  # `t == a_list` is a Python bool
        return _broadcast_rank(args, depth)
    name = target.rsplit(".", 1)[-1]
    if not (node.op == "call_method" or target.startswith("torch.")) or not args or not _ranked(args[0]):
        return None
    if name in FULL_REDUCTIONS and len(args) == 1 and not kwargs:
        return 0
    if name == "flatten" and len(args) == 1 and not kwargs:
        return 1
    if name in ELEMENTWISE_FUNCTIONS:
        return _broadcast_rank((*args, *kwargs.values()), depth)
    return None


def _tuple_rank(node, depth: int) -> int | None:
    """The rank of the values (and indices) of `t.kthvalue(k)`, `t.max(dim)` and the like."""
    if not _ranked(node) or node.op not in ("call_method", "call_function") or not isinstance(node.target, str) \
            or node.target.rsplit(".", 1)[-1] not in DIM_REDUCTIONS or node.kwargs or not _ranked(node.args[0]):
        return None
    name = node.target.rsplit(".", 1)[-1]
    rest = node.args[1:]
    if name == "kthvalue" and len(rest) in (1, 2) or name in ("mode", "median") and len(rest) in (0, 1) \
            or name in ("max", "min") and len(rest) == 1 and isinstance(rest[0], int):
        if name in ("median",) and not rest:
            return None
        rank = node_rank(node.args[0], depth + 1)
        return max(rank - 1, 0) if rank is not None else None
    return None


def _broadcast_rank(args, depth: int) -> int | None:
    ranks = []
    for arg in args:
        if _ranked(arg):
            rank = node_rank(arg, depth + 1)
        elif isinstance(arg, (bool, int, float)) or arg == "<static>":
            rank = 0
        else:
            rank = None
        if rank is None:
            return None
        ranks.append(rank)
    return max(ranks, default=None)


def _ranked(arg) -> bool:
    return hasattr(arg, "op") and hasattr(arg, "target")


def traced_zero_dim(ctx: Context, expr) -> bool:
    """Did the analysis trace this expression, and is every value it traced there 0-d?"""
    nodes = ctx.traced.get(ctx.span(expr), ())
    return bool(nodes) and all(node_rank(node) == 0 for node in nodes)


def zero_dim_operand(ctx: Context, expr) -> bool:
    """Is this operand of a `+`/`*`/comparison a Python number or a 0-d tensor in every traced
    operation around it (so it does not change the other operand's shape)?"""
    cst = ctx.cst
    parent = ctx.parent(expr)
    if isinstance(parent, cst.ComparisonTarget):
        parent, position = ctx.parent(parent), 1
    elif isinstance(parent, cst.BinaryOperation):
        position = 0 if parent.left is expr else 1
    elif isinstance(parent, cst.Comparison) and parent.left is expr:
        position = 0
    else:
        return False
    nodes = ctx.traced.get(ctx.span(parent), ())
    if not nodes:
        return False
    for node in nodes:
        if node.target not in ELEMENTWISE_OPERATORS or len(node.args) != 2:
            return False
        arg = node.args[position]
        if _ranked(arg) and node_rank(arg) != 0 or not _ranked(arg) and not isinstance(arg, (int, float)) \
                and arg != "<static>":
            return False
    return True


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
    if isinstance(node, cst.Attribute) and node.attr.value in ("values", "indices") \
            and isinstance(node.value, cst.Call) and _call_name(cst, node.value) in ("max", "min", "median"):
        return _reduced(ctx, node.value, arm)  # x.max(1).values
    if isinstance(node, cst.Call) and _call_name(cst, node) in DIM_REDUCING_METHODS and node.args:
        return _reduced(ctx, node, arm)  # x.mean(1)
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
        if name in FULL_REDUCTIONS and isinstance(func, cst.Attribute) and not node.args and ctx.is_tensor_op(node):
            elementwise_leaves(ctx, func.value, arm)  # x.abs().max(): 0-d, so it adds no shape
            return set()
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
        if shape_preserving_module(ctx, node):  # self.fc(h), fc an nn.Linear(d, d)
            return elementwise_leaves(ctx, node.args[0].value, arm)
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


# Modules whose output has the shape and dtype of their one input and whose forward neither
# changes state nor draws random numbers (so running it on the arm not taken changes nothing).
SHAPE_PRESERVING_MODULES = frozenset({
    "LayerNorm", "RMSNorm", "Identity", "ReLU", "ReLU6", "GELU", "SiLU", "Mish", "Tanh", "Sigmoid", "ELU",
    "SELU", "CELU", "LeakyReLU", "Softplus", "Softsign", "Hardtanh", "Hardsigmoid", "Hardswish", "LogSigmoid",
    "Tanhshrink"})


def class_binding(ctx: Context, attribute) -> Any:
    """The value of the one `self.<name> = value` that the class around this `self.<name>`
    read makes anywhere in its body, or None (bound more than once, with `+=`, or not in it)."""
    cst = ctx.cst
    owner = ctx.parent(attribute)
    while owner is not None and not isinstance(owner, cst.ClassDef):
        owner = ctx.parent(owner)
    dotted = _dotted(ctx, attribute)
    if owner is None or dotted is None:
        return None
    bound = [sub for sub in _walk(cst, owner) if isinstance(sub, cst.Assign) and any(
        _dotted(ctx, target.target) == dotted for target in sub.targets)]
    bound += [sub for sub in _walk(cst, owner) if isinstance(sub, (cst.AugAssign, cst.AnnAssign))
              and _dotted(ctx, sub.target) == dotted]
    if len(bound) != 1 or not isinstance(bound[0], cst.Assign) or len(bound[0].targets) != 1:
        return None
    return bound[0].value


def shape_preserving_module(ctx: Context, call) -> bool:
    """Is `self.<name>(x)` a call of a submodule that its class binds once, to an
    `nn.Linear(d, d)` (the same in and out features) or to a normalisation or activation module
    of SHAPE_PRESERVING_MODULES, and did the analysis trace the call?"""
    cst = ctx.cst
    func = call.func
    if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"
            and len(call.args) == 1 and call.args[0].keyword is None and not call.args[0].star
            and ctx.is_tensor_op(call)):
        return False
    made = class_binding(ctx, func)
    if not isinstance(made, cst.Call):
        return False
    kind = _dotted(ctx, made.func) or ""
    namespace, _, cls = kind.rpartition(".")
    if namespace not in ("nn", "torch.nn"):
        return False
    if cls in SHAPE_PRESERVING_MODULES:
        return True
    features = [arg.value for arg in made.args if arg.keyword is None][:2]
    keywords = {arg.keyword.value: arg.value for arg in made.args if arg.keyword is not None}
    features += [keywords[k] for k in ("in_features", "out_features") if k in keywords]
    return cls == "Linear" and len(features) == 2 and ctx.code(features[0]) == ctx.code(features[1]) \
        and not any(arg.star for arg in made.args) and keywords.get("dtype") is None


# Methods that, given one integer, reduce that dimension away (for max/min/median: their .values).
DIM_REDUCING_METHODS = frozenset({"sum", "mean", "amax", "amin", "prod", "logsumexp"})


def _reduced(ctx: Context, call, arm: str) -> set[str]:
    """`t.mean(1)`, `t.max(1).values`: one operand standing for "t's operands with dimension 1
    reduced away", so two such reductions over the same operands and dimension match."""
    cst = ctx.cst
    func = call.func
    if not (isinstance(func, cst.Attribute) and len(call.args) == 1 and call.args[0].keyword is None
            and isinstance(call.args[0].value, cst.Integer) and ctx.is_tensor_op(call)):
        raise Decline(f"the {arm} calls `{ctx.code(func)}`, which is not element-wise, so the arms' shapes may "
                      "differ and torch.where would broadcast them")
    inner = elementwise_leaves(ctx, func.value, arm)
    return {f"({' '.join(sorted(inner))}) without dimension {call.args[0].value.value}"}


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
        return _tensor_any_all(ctx, test), negated
    if not _traced_tensor(ctx, test):
        raise Decline(f"fix cannot show that the condition `{ctx.code(test)}` is a tensor (a numpy array "
                      "or a Python value cannot be a torch.where or torch._assert_async condition)")
    if zero_dim and not _zero_dim(ctx, test):
        return _one_element(ctx, _without_item(ctx, test)), negated
    return _without_item(ctx, test), negated


def _one_element(ctx: Context, test) -> Any:
    """`(test).reshape(())`: the `if` needs its condition to hold one element (bool() of a
    tensor raises otherwise), whatever its shape; reshape(()) makes that element the 0-d
    condition torch.where needs, so no shape is broadcast into the result, and raises on
    exactly the inputs bool() raised on."""
    cst = ctx.cst
    if not test.lpar and not isinstance(test, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
        test = test.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Call(func=cst.Attribute(value=test, attr=cst.Name("reshape")),
                    args=[cst.Arg(cst.Tuple(elements=[]))])


def _without_item(ctx: Context, test) -> Any:
    """The condition with each `t.item()` replaced by the 0-d tensor `t` (a Python number is no
    torch.where or torch._assert_async condition; under capture_scalar_outputs the `.item()`
    traces, and the `if` on it breaks); Decline where `t` is not visibly 0-d."""
    cst = ctx.cst
    items = [sub for sub in _walk(cst, test) if isinstance(sub, cst.Call) and isinstance(sub.func, cst.Attribute)
             and sub.func.attr.value == "item" and not sub.args]
    if not items:
        return test
    for item in items:
        if not _zero_dim(ctx, item.func.value):
            raise Decline(f"fix cannot show that `{ctx.code(item.func.value)}` is zero-dimensional, so its "
                          "`.item()` cannot be dropped from the condition")
    targets = {id(item): item.func.value for item in items}

    class DropItem(cst.CSTTransformer):
        def on_leave(self, original_node, updated_node):
            return targets.get(id(original_node), updated_node)

    return test.visit(DropItem())


def _tensor_any_all(ctx: Context, test) -> Any:
    """`any(t)` / `all(t)` over a traced tensor as `t.any()` / `t.all()`, a 0-d tensor. Python
    tests each `t[i]` for truth, which succeeds only where each is a single element, and then
    gives what the tensor method gives (on an empty tensor too); elsewhere it raised."""
    cst = ctx.cst
    which = test.func.value
    args = test.args
    if len(args) != 1 or args[0].keyword is not None or args[0].star or not _traced_tensor(ctx, args[0].value):
        raise Decline(f"the condition calls Python's `{which}()` over a list or generator (not one tensor), which "
                      "tests each item for truth in Python; write it with a tensor's .any()/.all()")
    operand = args[0].value
    text = ctx.code(operand.with_changes(lpar=[], rpar=[]) if hasattr(operand, "lpar") else operand)
    if not isinstance(operand, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
        text = f"({text})"
    return cst.parse_expression(f"{text}.{which}()")


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
    local name it is? (The branch's own truth test does not count: see traced_nodes.)"""
    if ctx.is_tensor_op(node):
        return True
    if isinstance(node, ctx.cst.Name) and depth < 3:
        value = single_assignment(ctx, node)
        return value is not None and _traced_tensor(ctx, value, depth + 1)
    return False


def numpy_conversion(ctx: Context, call) -> bool:
    """Did the analysis trace this conversion as a numpy array's (`np.random.rand(1).item()`:
    a `numpy.ndarray.item` node)? The array has no `.detach()`, and is no tensor to keep."""
    return any(str(node.target).startswith("numpy.") for node in ctx.traced.get(ctx.span(call), ()))


def _zero_dim(ctx: Context, node, depth: int = 0) -> bool:
    """Is the expression statically a 0-d tensor or a Python number (a full reduction, or a
    comparison / arithmetic of those, or a local name assigned once from one), or one the
    analysis traced as 0-d (see node_rank)?"""
    cst = ctx.cst
    if depth == 0 and traced_zero_dim(ctx, node):
        return True
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
        if _call_name(cst, node) == "reshape" and isinstance(node.func, cst.Attribute):
            return _is_boolean(ctx, node.func.value)  # a condition made one element (_one_element)
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
