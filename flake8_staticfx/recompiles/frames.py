"""What a compiled frame's guards check, read from its source: each parameter and module
attribute it reads, and how dynamo treats it (measured with torch 2.13, tests/recompile_cases):

- CONSTANT: the value stays a Python constant of the graph, so every new value compiles again
  until the recompile limit (even with dynamic=True): an int in `range()`, an index into a list
  or ModuleList, `F.dropout`'s `p`, `label_smoothing=`, a string or bool that picks a branch, a
  function that is called, an int or float attribute of the module;
- SCALAR: an int or float used only in arithmetic: the second value recompiles once and the
  number becomes symbolic;
- COUNTER: an attribute the frame itself rebinds from its value (`self.step += 1`): a new int at
  every call (in training mode only, under `if self.training:`), one of two bools
  (`self.flip = not self.flip`), a float symbolic once it changed (tuned/self_state.py); a write
  in the branch dynamo does not take (`if not torch.compiler.is_compiling():`) is none;
- TENSOR: a tensor argument, guarded on its shape and requires_grad;
- BRANCH: a SCALAR compared with a number in a branch's test (`noise if t > 0 else 0.`): once the
  number is symbolic, the outcome is guarded, and a value crossing the comparison recompiles at
  that line (measured: realcode/ddpm_p_sample.py, the timestep reaching 0).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from .syntax import compiling_branch, frame_line, is_self_attribute, is_training_test

CONSTANT, SCALAR, COUNTER, TENSOR, TRAINING, BRANCH = "constant", "scalar", "counter", "tensor", "training", "branch"
CONSTANT_KEYWORDS = frozenset({"p", "label_smoothing"})
CONSTANT_POSITIONS = {"dropout": 1, "dropout1d": 1, "dropout2d": 1, "dropout3d": 1, "alpha_dropout": 1}


@dataclass(frozen=True)
class Guarded:
    """One input of the frame that its guards check."""

    kind: str
    name: str  # the parameter or `self.<attribute>`
    index: int | None  # the parameter's position after self (None: an attribute)
    line: int  # where dynamo installs the guard (the first use that specialises)
    col: int
    construct: str  # the source text of that use
    # For an index: what is indexed (a parameter or `self.<attribute>`); a constant only when
    # that is a list at the call, not a tensor.
    container: str | None = None
    compared: tuple | None = None  # a BRANCH's comparison: (the ast operator's class, the number)
    in_training: bool = False  # a COUNTER written under `if self.training:` only
    item: str | None = None  # a keyword of the `**kwargs` input at `index` (keywords.py)


def guarded_inputs(frame: ast.FunctionDef, is_method: bool,
                   training_layers: frozenset[str] = frozenset()) -> list[Guarded]:
    """What the frame's guards check. `training_layers`: the module's attributes holding a layer
    that reads `training` (dropout, batch norm): calling one guards `training` at that line."""
    params = [a.arg for a in frame.args.args][1 if is_method else 0:]
    uses = _Uses(set(params))
    for statement in frame.body:
        uses.visit(statement)
    found = []
    for index, name in enumerate(params):
        if name in uses.constant:
            node = uses.constant[name]
            container = ast.unparse(node.value) if isinstance(node, ast.Subscript) else None
            site = frame if name in uses.called else node  # dynamo prints a code guard without a line
            line = frame_line(frame) if site is frame else site.lineno
            found.append(Guarded(CONSTANT, name, index, line, site.col_offset, ast.unparse(node), container))
        elif name in uses.first:
            node = uses.first[name]
            found.append(Guarded(SCALAR, name, index, node.lineno, node.col_offset, ast.unparse(node)))
            found.extend(Guarded(BRANCH, name, index, test.lineno, test.col_offset, ast.unparse(test),
                                 compared=(type(test.ops[0]), test.comparators[0].value))
                         for test in uses.compared.get(name, []))
    for name, node in uses.attribute_reads.items():
        kind = COUNTER if name in uses.attribute_writes else CONSTANT
        site = uses.attribute_writes.get(name, node)
        found.append(Guarded(kind, f"self.{name}", None, site.lineno, site.col_offset, ast.unparse(site),
                             in_training=name in uses.training_writes))
    reads = [node for name, node in uses.attribute_reads.items() if name in training_layers]
    reads += [uses.training_read] if uses.training_read is not None else []
    if reads:
        site = min(reads, key=lambda node: (node.lineno, node.col_offset))
        found.append(Guarded(TRAINING, "self.training", None, site.lineno, site.col_offset, ast.unparse(site)))
    keywords = frame.args.kwarg.arg if frame.args.kwarg else None
    if keywords and any(isinstance(n, ast.Name) and n.id == keywords for n in ast.walk(frame)):
        # the keywords its **kwargs took (gpt-fast's **sampling_kwargs), read where the frame's
        # own uses do not say: guarded as a constant, their value what the replay passed after
        # the named parameters (not followed when not empty: drivers._positional)
        found.append(Guarded(CONSTANT, keywords, len(params), frame_line(frame), frame.col_offset,
                             f"**{keywords}"))
    return found


def tensor_guard(frame: ast.FunctionDef, index: int, name: str) -> Guarded:
    return Guarded(TENSOR, name, index, frame_line(frame), frame.col_offset, f"def {frame.name}")


class _Uses(ast.NodeVisitor):
    """The first specialising use of each parameter, and the module attributes read and written."""

    def __init__(self, params: set[str]):
        self.params = params
        self.constant: dict[str, ast.AST] = {}
        self.first: dict[str, ast.AST] = {}
        self.attribute_reads: dict[str, ast.AST] = {}
        self.attribute_writes: dict[str, ast.stmt] = {}
        self.training_writes: set[str] = set()  # written under `if self.training:` only
        self.in_training = False
        self.training_read: ast.AST | None = None
        self.called: set[str] = set()
        self.compared: dict[str, list[ast.Compare]] = {}

    def visit_FunctionDef(self, node):  # nested functions are other frames
        pass

    visit_Lambda = visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def mark(self, expr: ast.AST, site: ast.AST) -> None:
        """Every parameter named in `expr` stays a constant, guarded at `site`. The surest site
        is kept: a use that is always constant, before an index into `self.<list>`, before an
        index into an argument (a tensor there leaves the int symbolic)."""
        owners = {id(n.value) for n in ast.walk(expr) if isinstance(n, ast.Attribute)}
        for node in ast.walk(expr):
            if isinstance(node, ast.Name) and node.id in self.params and id(node) not in owners:
                # (`x.shape[1]` reads x's size, a guard of its own, not x as a value)
                known = self.constant.get(node.id)
                if known is None or _sureness(site) < _sureness(known):
                    self.constant[node.id] = site

    def visit_Name(self, node):
        if node.id in self.params:
            self.first.setdefault(node.id, node)

    def visit_Call(self, node):
        name = _called_name(node.func)
        if name == "range":
            for arg in node.args:
                self.mark(arg, node)
        position = CONSTANT_POSITIONS.get(name.rsplit(".", 1)[-1]) if name else None
        if position is not None and len(node.args) > position:
            self.mark(node.args[position], node)
        for keyword in node.keywords:
            if keyword.arg in CONSTANT_KEYWORDS:
                self.mark(keyword.value, node)
        if isinstance(node.func, ast.Name) and node.func.id in self.params:
            self.called.add(node.func.id)  # a function argument: guarded on its code, no line
            self.constant.setdefault(node.func.id, node)
        self.generic_visit(node)

    def visit_Subscript(self, node):
        if not _is_tensor_like(node.value):
            self.mark(node.slice, node)
        self.generic_visit(node)

    def visit_If(self, node):
        taken = compiling_branch(node)
        if taken is not None:  # dynamo never reads the other branch
            for statement in taken:
                self.visit(statement)
            return
        self.mark_test(node.test, node)
        if not is_training_test(node):
            self.generic_visit(node)
            return
        self.visit(node.test)
        self.in_training, outer = True, self.in_training
        for statement in node.body:
            self.visit(statement)
        self.in_training = outer

    def visit_IfExp(self, node):
        self.mark_test(node.test, node)
        self.generic_visit(node)

    def mark_test(self, test: ast.expr, statement: ast.AST) -> None:
        """A parameter tested for truth or compared with a string picks a branch at trace time."""
        if isinstance(test, ast.Name):
            self.mark(test, test)
        elif isinstance(test, ast.Compare) and any(
                isinstance(c, ast.Constant) and isinstance(c.value, str) for c in test.comparators):
            self.mark(test.left, test)
        elif isinstance(test, ast.Compare) and isinstance(test.ops[0], ast.In) and isinstance(
                test.left, ast.Constant):
            self.mark(test.comparators[0], test)  # `"text" in batch`: the dict's keys are guarded
        elif isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(
                test.ops[0], (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)) and isinstance(
                test.left, ast.Name) and test.left.id in self.params and isinstance(test.comparators[0], ast.Constant) \
                and type(test.comparators[0].value) in (int, float):
            self.compared.setdefault(test.left.id, []).append(test)

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            if node.attr == "training":
                self.training_read = self.training_read or node
            elif isinstance(node.ctx, ast.Load):
                self.attribute_reads.setdefault(node.attr, node)
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        if is_self_attribute(node.target):
            self.write(node.target.attr, node)
            self.attribute_reads.setdefault(node.target.attr, node)
        self.generic_visit(node)

    def visit_Expr(self, node):
        call = node.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append" \
                and is_self_attribute(call.func.value):
            self.write(call.func.value.attr, node)  # self.seen.append(x): its length is guarded
        self.generic_visit(node)

    def visit_Assign(self, node):
        for target in node.targets:
            if is_self_attribute(target) and any(
                    is_self_attribute(n) and n.attr == target.attr for n in ast.walk(node.value)):
                self.write(target.attr, node)  # self.n = self.n + 1
        self.generic_visit(node)

    def write(self, name: str, node: ast.stmt) -> None:
        """A rebinding of `self.<name>` from its own value; training-only while every write is."""
        if name not in self.attribute_writes and self.in_training:
            self.training_writes.add(name)
        elif not self.in_training:
            self.training_writes.discard(name)
        self.attribute_writes.setdefault(name, node)


def _sureness(site: ast.AST) -> int:
    if not isinstance(site, ast.Subscript):
        return 0
    return 1 if is_self_attribute(site.value) else 2


def _called_name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _is_tensor_like(value: ast.expr) -> bool:
    """A subscript of something that is not `self.<list>` or a parameter: a tensor being sliced
    (`x[:, :n]` keeps n symbolic), left alone."""
    return not (is_self_attribute(value) or isinstance(value, ast.Name))
