"""State a module's forward changes on itself, which recompiles the compiled module for any
caller that calls it more than once: the claim made where no driver of the file describes the
calls (measured with torch 2.13, 2.14.1 and 2.15.0: tests/recompile_cases/tuned/self_state.py,
counter_shapes.py and decorated_counters.py).

An int attribute of the module that forward reads and rebinds (`self.step += 1`,
`self.n = self.n + 1`) is a constant of the graph, guarded on its value: every call after the
first compiles again, until `recompile_limit` compiles, and the frame runs eagerly from then on.
That holds wherever the write is reached on every call: in forward's own code, in a method of
the module forward calls, under `if self.training:` (in training mode), after a break dynamo
resumes from (the resume function recompiles), in a child module's forward (its own root here).

No claim (measured near misses): a buffer updated in place or with `+=` (a tensor); a constant
written again; a write under `if not torch.compiler.is_compiling()`; a method forward does not
call, or hands to another function (torch.utils.checkpoint runs it with dynamo disabled); a
forward dynamo runs eagerly (a break in a loop) or never compiles (`@torch.compiler.disable`;
under `@torch.no_grad()` or `@torch.inference_mode()` torch's wrapper inlines it, and the counter
recompiles); a write only some paths reach. A bool toggled (compiles twice, then both entries
match) and a float (its second value is symbolic) recompile once: not claimed. A list attribute forward appends to is guarded on its length: every call
recompiles too, unless some code empties or rebinds it.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

from .declarations import grad_decorator
from .syntax import compiling_branch, dotted, is_self_attribute, is_training_test

MAX_METHOD_DEPTH = 3  # forward -> self.a() -> self.b() -> self.c()
COUNT, GROWTH = "count", "growth"  # an int counted up or down; a list appended to
GROWING = frozenset({"append", "extend", "insert"})
SHRINKING = frozenset({"clear", "pop", "remove"})


@dataclass(frozen=True)
class CounterWrite:
    """A change forward makes to its module's own state on every call (or every call in training
    mode): an int counted up or down (COUNT), a list appended to (GROWTH)."""

    cls: str
    attribute: str
    line: int
    col: int
    construct: str  # the statement, as the source writes it
    in_training: bool  # under `if self.training:`
    kind: str = COUNT  # COUNT or GROWTH


def counter_writes(tree: ast.Module) -> list[CounterWrite]:
    """The int attributes each class of the file counts and the lists it grows in its forward, on
    every call that dynamo compiles: a forward under another decorator than a grad mode's
    (`@torch.compiler.disable`) is left out (tuned/decorated_counters.py)."""
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    found = []
    for cls in classes.values():
        forward = _methods(cls, classes).get("forward")
        if forward is None or any(grad_decorator(decorator) is None for decorator in forward.decorator_list):
            continue
        wanted = {COUNT: _int_attributes(cls, classes), GROWTH: _list_attributes(cls, classes)}
        found += [write for write in forward_increments(cls, classes) if write.attribute in wanted[write.kind]]
    return found


def forward_increments(cls: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> list[CounterWrite]:
    """The counts and growths the class's forward makes on every call, in its own code or in the
    methods of the module it calls, whatever the attribute holds."""
    walk = _forward_walk(cls, classes)
    return [CounterWrite(cls.name, name, stmt.lineno, stmt.col_offset, ast.unparse(stmt), in_training, kind)
            for name, stmt, in_training, kind in walk.writes]


def called_children(cls: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> set[str]:
    """The attributes forward calls on every call that are not methods of the class: its child
    modules (`self.inner(x)`), whose forward is inlined in forward's frame."""
    walk = _forward_walk(cls, classes)
    return walk.children - set(walk.methods)


def _forward_walk(cls: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> _Walk:
    """The class's forward walked (nothing found when it has none)."""
    walk = _Walk(_methods(cls, classes))
    forward = walk.methods.get("forward")
    if forward is not None:
        walk.statements(forward.body, in_training=False, depth=0)
    return walk


def _methods(cls: ast.ClassDef, classes: dict[str, ast.ClassDef], depth: int = 0) -> dict[str, ast.FunctionDef]:
    """The class's methods, with those of its bases defined in the file (the nearest wins)."""
    found: dict[str, ast.FunctionDef] = {}
    for base in reversed(cls.bases):
        if isinstance(base, ast.Name) and base.id in classes and base.id != cls.name and depth < 8:
            found.update(_methods(classes[base.id], classes, depth + 1))
    found.update({node.name: node for node in cls.body if isinstance(node, ast.FunctionDef)})
    return found


def _int_attributes(cls: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> set[str]:
    """The attributes `__init__` sets to an int literal and no other code of the class binds to
    anything else (a buffer, a tensor, a value of a call)."""
    methods = _methods(cls, classes)
    init = methods.get("__init__")
    ints = set()
    for node in ast.walk(init) if init is not None else ():
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and is_self_attribute(node.targets[0]) \
                and _is_int(node.value):
            ints.add(node.targets[0].attr)
    for method in methods.values():
        for node in ast.walk(method):
            if _binds_otherwise(node, ints):
                ints.discard(_bound_name(node))
    return ints


def _list_attributes(cls: ast.ClassDef, classes: dict[str, ast.ClassDef]) -> set[str]:
    """The attributes `__init__` sets to an empty list and no code of the class binds again,
    empties or shortens (`self.h = []` in a reset, `self.h.clear()`, `del self.h[0]`)."""
    methods = _methods(cls, classes)
    init = methods.get("__init__")
    lists, first = set(), {}
    for node in ast.walk(init) if init is not None else ():
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and is_self_attribute(node.targets[0]) \
                and _is_empty_list(node.value):
            lists.add(node.targets[0].attr)
            first.setdefault(node.targets[0].attr, node)
    for method in methods.values():
        for node in ast.walk(method):
            name = _bound_name(node)
            if name in lists and node is not first[name]:
                lists.discard(name)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SHRINKING \
                    and is_self_attribute(node.func.value):
                lists.discard(node.func.value.attr)
            if isinstance(node, ast.Delete):
                lists -= {target.value.attr for target in node.targets
                          if isinstance(target, ast.Subscript) and is_self_attribute(target.value)}
    return lists


def _is_empty_list(node: ast.expr) -> bool:
    return isinstance(node, ast.List) and not node.elts or (
        isinstance(node, ast.Call) and dotted(node.func) == "list" and not node.args)


def _growth(stmt: ast.stmt) -> str | None:
    """The list attribute a statement grows: `self.h.append(x)`, `self.h.extend(xs)`."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in GROWING \
            and is_self_attribute(call.func.value):
        return call.func.value.attr
    return None


def _is_int(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


def _bound_name(node: ast.AST) -> str | None:
    """The attribute a statement binds (`self.<name> = ...`, `register_buffer("<name>", ...)`)."""
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return next((t.attr for t in targets if is_self_attribute(t)), None)
    if isinstance(node, ast.Call) and dotted(node.func).rsplit(".", 1)[-1] in ("register_buffer", "setattr") \
            and node.args:
        name = node.args[1] if dotted(node.func) == "setattr" and len(node.args) > 1 else node.args[0]
        return name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else None
    return None


def _binds_otherwise(node: ast.AST, ints: set[str]) -> bool:
    """A binding of an int attribute to something that may not be an int."""
    name = _bound_name(node)
    if name not in ints:
        return False
    if isinstance(node, ast.Assign):
        return not (_is_int(node.value) or _increment(node) == name)
    if isinstance(node, ast.AugAssign):
        return _increment(node) != name
    return True


def _increment(stmt: ast.stmt) -> str | None:
    """The attribute a statement counts up or down by a positive int: `self.n += 1`,
    `self.n -= 2`, `self.n = self.n + 1`, `self.n = 1 + self.n`."""
    if isinstance(stmt, ast.AugAssign) and is_self_attribute(stmt.target) and isinstance(
            stmt.op, (ast.Add, ast.Sub)) and _positive_int(stmt.value):
        return stmt.target.attr
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and is_self_attribute(stmt.targets[0]) \
            and isinstance(stmt.value, ast.BinOp):
        name, value = stmt.targets[0].attr, stmt.value
        if isinstance(value.op, (ast.Add, ast.Sub)) and _is_read(value.left, name) and _positive_int(value.right):
            return name
        if isinstance(value.op, ast.Add) and _is_read(value.right, name) and _positive_int(value.left):
            return name
    return None


def _positive_int(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value > 0


def _is_read(node: ast.expr, name: str) -> bool:
    return is_self_attribute(node) and node.attr == name


class _Walk:
    """Forward's statements that run on every call under dynamo, followed into the module's own
    methods forward calls as a statement (`self._tick()`, `n = self._tick()`); the increments
    and list growths found there."""

    def __init__(self, methods: dict[str, ast.FunctionDef]):
        self.methods = methods
        self.writes: list[tuple[str, ast.stmt, bool, str]] = []  # (attribute, statement, in training, kind)
        self.children: set[str] = set()  # the attributes called (`self.inner(x)`) outside branches

    def statements(self, body: list[ast.stmt], in_training: bool, depth: int) -> bool:
        """Walk `body`; False once a statement may leave it on some path (the rest runs on some
        calls only)."""
        for stmt in body:
            if isinstance(stmt, (ast.Return, ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign)):
                self.children |= {node.func.attr for node in ast.walk(stmt)
                                  if isinstance(node, ast.Call) and is_self_attribute(node.func)}
            if isinstance(stmt, (ast.Return, ast.Raise)):
                if isinstance(stmt.value if isinstance(stmt, ast.Return) else None, ast.Call):
                    self.method_call(stmt.value, in_training, depth)  # `return self._step(x)`
                return False
            name, grown = _increment(stmt), _growth(stmt)
            if name is not None:
                self.writes.append((name, stmt, in_training, COUNT))
            elif grown is not None:
                self.writes.append((grown, stmt, in_training, GROWTH))
            elif isinstance(stmt, ast.If) and not self.branch(stmt, in_training, depth):
                return False
            elif isinstance(stmt, (ast.With, ast.AsyncWith)) and not self.statements(stmt.body, in_training, depth):
                return False
            elif isinstance(stmt, (ast.Expr, ast.Assign)) and isinstance(stmt.value, ast.Call):
                self.method_call(stmt.value, in_training, depth)
            elif not isinstance(stmt, (ast.If, ast.With, ast.AsyncWith)) and _leaves(stmt):
                return False  # a loop or a try that may return: what follows runs on some calls
        return True

    def branch(self, stmt: ast.If, in_training: bool, depth: int) -> bool:
        """An `if`: the branch dynamo takes when it decides the test, `self.training`'s body in
        training mode; any other test's writes run on some calls only."""
        taken = compiling_branch(stmt)
        if taken is not None:
            return self.statements(taken, in_training, depth)
        if is_training_test(stmt):
            self.statements(stmt.body, True, depth)
            return not _leaves(stmt)
        return not _leaves(stmt)

    def method_call(self, call: ast.Call, in_training: bool, depth: int) -> None:
        """`self.<method>(...)`: its body runs here, inlined in forward's frame."""
        method = self.methods.get(call.func.attr) if is_self_attribute(call.func) else None
        if method is None or method.decorator_list or depth >= MAX_METHOD_DEPTH or method.name == "forward":
            return
        self.statements(method.body, in_training, depth + 1)


def _leaves(stmt: ast.stmt) -> bool:
    """Whether a compound statement may return or raise out of the function (a function
    defined inside is another frame)."""
    pending = [stmt]
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Return, ast.Raise)):
            return True
        pending += [child for child in ast.iter_child_nodes(node)
                    if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef))]
    return False

