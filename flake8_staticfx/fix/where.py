"""Rewrite: a data-dependent if/else or ternary of element-wise arms becomes torch.where."""
from __future__ import annotations

from typing import Any

from .base import (
    Context, Decline, Edit, Outcome, Rewrite, _call_name, _dotted, _if_at, _is_boolean, _is_elif, _zero_dim,
    _leading_with_comments, _walk, elementwise_leaves, number_attribute, side_effect, tensor_condition,
    single_assignment, zero_dim_operand,
)


class SelectWithWhere(Rewrite):
    """A data-dependent `if`/`else` (or a ternary) whose arms only assign the same names from
    side-effect-free element-wise tensor expressions of the same operands becomes
    `name = torch.where(cond, then_value, else_value)`; an `if` without `else` keeps the old
    value (`x = torch.where(cond, new_x, x)`) when the arm reads the name it assigns.

    Dynamo 2.13 breaks on the `if` (GB0170); `torch.where(c, a, b)` with a tensor condition
    traces without a break (measured, and listed among what does not break). Both arms are
    computed, so they must be safe to compute: element-wise ops (no function calls, no indexing,
    no side effects) over the same operands have the same broadcast shape, and a
    zero-dimensional condition selects a whole arm, so the result equals the arm the `if` took.
    Operands that are Python numbers or 0-d tensors (where the graph shows it: node_rank) and
    full reductions add no shape; `t.mean(1)` and `t.max(1).values` both stand for "t without
    dimension 1"; a local name bound once, from names bound before it, stands for its value.
    A submodule that keeps its input's shape and dtype and has no state to change or random
    numbers to draw (`nn.Linear(d, d)`, a normalisation, an activation: base.shape_preserving_module)
    counts as its input; running it on the arm not taken costs time, not correctness (its
    gradient there is zero), though an input it would reject now raises on either path. A
    condition that is not visibly 0-d is declined: its shape would be broadcast into the result.
    Other modules and functions are declined rather than rewritten with torch.cond, whose
    branches must return matching shapes and dtypes, which cannot be shown from the source.

    An early return, `if c: return a` directly followed by `return b` (or `else: return b`),
    becomes `return torch.where(c, a, b)` on the same terms, and a ternary likewise. In every
    form the values must keep their operands' dtype (no comparison or cast), since torch.where
    promotes both to one dtype. `self.<attr>` operands the analysis read as Python numbers do
    not count as operands (they do not change the shape). The condition must be a traced
    tensor (a numpy array's is not one); Python's `any(t)`/`all(t)` over one tensor is
    `t.any()`/`t.all()` (see base._tensor_any_all). Where the operands are
    floating-point, as in model code, the element-wise ops cannot fail on the arm that was not
    taken; on integer tensors a float literal or `/` in one arm would promote the result.
    """

    name = "torch-where"
    codes = ("SFX101",)

    def plan(self, ctx: Context, region) -> Edit:
        cst = ctx.cst
        ternaries = [n for n in ctx._by_start.get((region.line, region.col), ())
                     if isinstance(ctx.parent(n), cst.IfExp) and ctx.parent(n).test is n]
        if ternaries:
            return self._ternary(ctx, region, ctx.parent(ternaries[0]))
        conjunct = _last_conjunct_if(ctx, region)
        if conjunct is not None:
            return self._conjunct(ctx, region, *conjunct)
        statement = _if_at(ctx, region)
        while _is_elif(ctx, statement):  # the chain is rewritten as a whole, from its `if`
            statement = ctx.parent(statement)
        if isinstance(statement.orelse, cst.If):
            return self._chain(ctx, region, statement)
        if _returned(ctx, statement.body.body) is not None:
            return self._early_return(ctx, region, statement)
        new, names = self._assigned_where(ctx, statement, statement.test)
        new[0] = new[0].with_changes(leading_lines=_leading_with_comments(ctx, statement))
        return Edit(statement, cst.FlattenSentinel(new), Outcome(
            ctx.path, region.code, region.line, region.col, self.name,
            summary=f"`if`/`else` became torch.where for {', '.join(names)}"))

    def _conjunct(self, ctx: Context, region, statement, guard, test) -> Edit:
        """`if s and t:` where `t`, the last operand, is the tensor condition (`s` was decided
        while tracing: the break is at `t`) is the same as `if s:` around `if t:` (Python
        evaluates `s` once, then `t` only where `s` holds); that inner `if` is rewritten as one
        alone would be, and `if s:` kept around it. Without an else branch only, which would run
        where either fails."""
        cst = ctx.cst
        if statement.orelse is not None:
            raise Decline(f"the tensor is tested inside `{ctx.code(statement.test)}`, and the `if` has an else "
                          "branch, which runs where either operand fails")
        if _returned(ctx, statement.body.body) is not None:
            a = _returned(ctx, statement.body.body)
            after = _next_statement(ctx, statement)
            b = _returned(ctx, [after]) if after is not None else None
            if b is None:
                raise Decline(f"the if branch returns early (`{ctx.code(statement.body.body[0]).strip()}`), and "
                              "the `if` is not followed by a `return` of a value, so the other path runs more code "
                              "first")
            condition, negated = tensor_condition(ctx, test, zero_dim=True)
            selected = self._select(ctx, condition, negated, a, b, ("returned value", "value returned otherwise"))
            inner = [cst.parse_statement(f"return {ctx.code(selected)}\n")]
            summary = "the early return became a return of torch.where"
        else:
            inner, names = self._assigned_where(ctx, statement, test)
            summary = f"`if` became torch.where for {', '.join(names)}"
        ctx.imports_torch()
        kept = cst.If(test=guard, body=cst.IndentedBlock(body=inner), leading_lines=_leading_with_comments(ctx, statement))
        return Edit(statement, kept, Outcome(ctx.path, region.code, region.line, region.col, self.name,
                                             summary=f"{summary}, inside `if {ctx.code(guard)}:`"))

    def _assigned_where(self, ctx: Context, statement, test) -> tuple[list, list[str]]:
        """The `name = torch.where(test, ...)` statements that stand for an `if`/`else` (on
        `test`) whose arms only assign names, and those names."""
        cst = ctx.cst
        then = self._assignments(ctx, statement.body.body, "if branch")
        other = self._assignments(ctx, statement.orelse.body.body, "else branch") if statement.orelse else None
        test, negated = tensor_condition(ctx, test, zero_dim=True)
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
        read_by_test = {sub.value for sub in _walk(cst, test) if isinstance(sub, cst.Name)} & assigned
        if len(then) > 1 and read_by_test:
            raise Decline(f"the condition reads `{sorted(read_by_test)[0]}`, which the arms assign, and one "
                          "torch.where per name would test it again after the first assignment")
        lines = []
        for (name, a), (_, b) in zip(then, other):
            leaves_a = _shape_operands(ctx, a, "if branch")
            leaves_b = _shape_operands(ctx, b, "else branch")
            if statement.orelse is not None or len(then) > 1:
                chained = (_names_read(ctx, a) | _names_read(ctx, b)) & (assigned - {name})
                if chained:
                    raise Decline(f"an arm reads `{sorted(chained)[0]}`, which the same branch assigns")
            if leaves_a != leaves_b:
                raise Decline(f"the arms for `{name}` read different operands ({', '.join(sorted(leaves_a)) or 'none'}"
                              f" / {', '.join(sorted(leaves_b)) or 'none'}), whose shapes torch.where would "
                              "broadcast together")
            if not (ctx.is_tensor_op(a) or ctx.is_tensor_op(b)):
                raise Decline(f"fix cannot show that `{name}` is a tensor in either arm")
            _keeps_dtype(ctx, ((f"if branch's `{name}`", a), (f"else branch's `{name}`", b)))
            if negated:
                a, b = b, a
            lines.append(f"{name} = torch.where({cond}, {_arg(ctx, a)}, {_arg(ctx, b)})\n")
        ctx.imports_torch()
        return [cst.parse_statement(text) for text in lines], [n for n, _ in then]

    def _chain(self, ctx: Context, region, statement) -> Edit:
        """`if c1: y = a` / `elif c2: y = b` ... / `else: y = z` becomes
        `y = torch.where(c1, a, torch.where(c2, b, z))`, on the terms of an `if`/`else`: every
        arm assigns the same names from element-wise expressions of the same operands that keep
        their dtype, each condition a traced tensor. Every condition is then computed, so one
        after the first must be visibly 0-d (it could raise where the chain never tested it)."""
        cst = ctx.cst
        arms, current = [], statement
        while isinstance(current, cst.If):
            if _returned(ctx, current.body.body) is not None:
                raise Decline("an arm of the elif chain returns early")
            arms.append((current.test, self._assignments(ctx, current.body.body, "branch")))
            current = current.orelse
        if current is None:
            raise Decline("the elif chain has no else, so a name may keep its old value on one path")
        last = self._assignments(ctx, current.body.body, "else branch")
        names = [n for n, _ in last]
        if any([n for n, _ in assigned] != names for _, assigned in arms):
            raise Decline("the arms of the elif chain assign different names")
        conditions = []
        for index, (test, _) in enumerate(arms):
            cond, negated = tensor_condition(ctx, test, zero_dim=True)
            if index and not _zero_dim(ctx, cond):
                raise Decline(f"the elif condition `{ctx.code(test)}` is not visibly 0-d, and computing it where "
                              "the chain did not could raise")
            if len(names) > 1 and {sub.value for sub in _walk(cst, cond) if isinstance(sub, cst.Name)} & set(names):
                raise Decline("a condition of the elif chain reads a name its arms assign")
            text = ctx.code(cond) if _is_boolean(ctx, cond) else f"({ctx.code(cond)}).bool()"
            conditions.append(f"torch.logical_not({text})" if negated else text)
        lines = []
        for position, name in enumerate(names):
            values = [dict(assigned)[name] for _, assigned in arms] + [last[position][1]]
            operands = {frozenset(_shape_operands(ctx, value, "branch")) for value in values}
            if len(operands) != 1:
                raise Decline(f"the arms for `{name}` read different operands, whose shapes torch.where would "
                              "broadcast together")
            if len(names) > 1 and any(_names_read(ctx, value) & (set(names) - {name}) for value in values):
                raise Decline("an arm reads a name the same branch assigns")
            if not any(ctx.is_tensor_op(value) for value in values):
                raise Decline(f"fix cannot show that `{name}` is a tensor in any arm")
            _keeps_dtype(ctx, ((f"`{name}` of an arm", value) for value in values))
            selected = _arg(ctx, values[-1])
            for cond, value in zip(reversed(conditions), reversed(values[:-1])):
                selected = f"torch.where({cond}, {_arg(ctx, value)}, {selected})"
            lines.append(f"{name} = {selected}\n")
        ctx.imports_torch()
        new = [cst.parse_statement(text) for text in lines]
        new[0] = new[0].with_changes(leading_lines=_leading_with_comments(ctx, statement))
        return Edit(statement, cst.FlattenSentinel(new), Outcome(
            ctx.path, region.code, region.line, region.col, self.name,
            summary=f"the `if`/`elif` chain became nested torch.where for {', '.join(names)}"))

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

    def _early_return(self, ctx: Context, region, statement) -> Edit:
        """`if c: return a` then `return b` (or `else: return b`) becomes
        `return torch.where(c, a, b)`, on the same terms as a ternary."""
        cst = ctx.cst
        a = _returned(ctx, statement.body.body)
        what = ctx.code(statement.body.body[0]).strip()
        if statement.orelse is not None:
            after, b = None, _returned(ctx, statement.orelse.body.body)
            if b is None:
                raise Decline(f"the if branch returns early (`{what}`), and the else branch does more than "
                              "return a value")
        else:
            after = _next_statement(ctx, statement)
            b = _returned(ctx, [after]) if after is not None else None
            if b is None:
                raise Decline(f"the if branch returns early (`{what}`), and the `if` is not followed by a "
                              "`return` of a value, so the other path runs more code first")
        test, negated = tensor_condition(ctx, statement.test, zero_dim=True)
        new = self._select(ctx, test, negated, a, b, ("returned value", "value returned otherwise"))
        ctx.imports_torch()
        trailing = [after] if after is not None else []
        returned = cst.parse_statement(f"return {ctx.code(new)}\n").with_changes(
            leading_lines=[*_leading_with_comments(ctx, statement),
                           *(line for s in trailing for line in _leading_with_comments(ctx, s))])
        return Edit(statement, returned, Outcome(ctx.path, region.code, region.line, region.col, self.name,
                                                 summary="the early return became a return of torch.where"),
                    removed=tuple(trailing))

    def _select(self, ctx: Context, test, negated: bool, a, b, arms: tuple[str, str]):
        """`torch.where(test, a, b)` for two side-effect-free element-wise tensor expressions of
        the same operands that keep their operands' dtype; Decline otherwise."""
        cst = ctx.cst
        effect = side_effect(ctx, a) or side_effect(ctx, b)
        if effect:
            raise Decline(f"an arm has a side effect (`{effect}`)")
        leaves_a = _shape_operands(ctx, a, arms[0])
        leaves_b = _shape_operands(ctx, b, arms[1])
        if leaves_a != leaves_b:
            raise Decline(f"the two values read different operands ({', '.join(sorted(leaves_a)) or 'none'} / "
                          f"{', '.join(sorted(leaves_b)) or 'none'}), whose shapes torch.where would broadcast")
        if not (ctx.is_tensor_op(a) or ctx.is_tensor_op(b)):
            raise Decline("fix cannot show that the two values are tensors")
        _keeps_dtype(ctx, zip(arms, (a, b)))
        cond = ctx.code(test) if _is_boolean(ctx, test) else f"({ctx.code(test)}).bool()"
        if negated:
            a, b = b, a
        return cst.parse_expression(f"torch.where({cond}, {_arg(ctx, a)}, {_arg(ctx, b)})")

    def _ternary(self, ctx: Context, region, ternary) -> Edit:
        test, negated = tensor_condition(ctx, ternary.test, zero_dim=True)
        new = self._select(ctx, test, negated, ternary.body, ternary.orelse, ("if value", "else value"))
        ctx.imports_torch()
        return Edit(ternary, new.with_changes(lpar=ternary.lpar, rpar=ternary.rpar), Outcome(
            ctx.path, region.code, region.line, region.col, self.name, summary="the ternary became torch.where"))


def _last_conjunct_if(ctx: Context, region) -> tuple[Any, Any, Any] | None:
    """(the `if`, `s`, `t`) where the region is at `t` (or `not t`) and the `if` tests
    `s and t`: `t` the last operand of an `and`, so `s` holds every operand before it."""
    cst = ctx.cst
    for node in ctx._by_start.get((region.line, region.col), ()):
        while isinstance(ctx.parent(node), cst.UnaryOperation) and isinstance(ctx.parent(node).operator, cst.Not):
            node = ctx.parent(node)
        parent = ctx.parent(node)
        if isinstance(parent, cst.BooleanOperation) and isinstance(parent.operator, cst.And) \
                and parent.right is node and not node.lpar:
            statement = ctx.parent(parent)
            if isinstance(statement, cst.If) and statement.test is parent and not _is_elif(ctx, statement):
                return statement, parent.left, node
    return None


def _shape_operands(ctx: Context, value, arm: str, depth: int = 0) -> set[str]:
    """The operands that give an element-wise expression its shape: its leaves, less those that
    are Python numbers or 0-d tensors (`self.<attr>` read as a number, or an operand the graph
    shows to be one), which broadcast without changing the shape; a local name bound once is
    replaced by its value's operands."""
    cst = ctx.cst
    scalars = {_dotted(ctx, sub) for sub in _walk(cst, value) if isinstance(sub, (cst.Name, cst.Attribute))
               and (isinstance(sub, cst.Attribute) and number_attribute(ctx, sub) or zero_dim_operand(ctx, sub))}
    operands = elementwise_leaves(ctx, value, arm) - scalars
    if depth < 3:
        for sub in _walk(cst, value):
            if isinstance(sub, cst.Name) and sub.value in operands:
                assigned = _settled_value(ctx, sub)
                try:
                    followed = _shape_operands(ctx, assigned, arm, depth + 1) if assigned is not None else None
                except Decline:  # not element-wise: the name stays an operand of its own
                    followed = None
                if followed is not None:
                    operands = (operands - {sub.value}) | followed
    return operands


def _settled_value(ctx: Context, name) -> Any:
    """The value of a local name bound once, before this read, from names that are all bound
    before it (so the value still has the shape it was computed with), else None."""
    from libcst.metadata import FunctionScope

    value = single_assignment(ctx, name)
    scope = ctx.scopes.get(name)
    if value is None or not isinstance(scope, FunctionScope):
        return None
    bound_at = ctx.positions[value].start.line
    if bound_at >= ctx.positions[name].start.line:
        return None
    for sub in _walk(ctx.cst, value):
        if isinstance(sub, ctx.cst.Name) and any(
                ctx.positions[a.node].start.line >= bound_at for a in scope.assignments[sub.value]
                if a.node in ctx.positions):
            return None
    return value


def _names_read(ctx: Context, value) -> set[str]:
    return {sub.value for sub in _walk(ctx.cst, value) if isinstance(sub, ctx.cst.Name)}


# Element-wise operations whose result has another dtype than their operands.
DTYPE_CHANGING = frozenset({"float", "double", "half", "bfloat16", "logical_not", "isnan", "isinf", "isfinite",
                            "bool", "eq", "ne", "gt", "lt", "ge", "le", "any", "all"})


def _keeps_dtype(ctx: Context, arms) -> None:
    """Decline when an arm (a (description, expression) pair) holds a comparison or cast:
    torch.where promotes both values to one dtype, so the arm taken could change dtype."""
    cst = ctx.cst
    for arm, value in arms:
        for sub in _walk(cst, value):
            if isinstance(sub, cst.Comparison) or (
                    isinstance(sub, cst.Call) and _call_name(cst, sub) in DTYPE_CHANGING):
                raise Decline(f"the {arm} changes the dtype (`{ctx.code(sub)}`), and torch.where would promote "
                              "both values to one dtype")


def _returned(ctx: Context, body) -> Any:
    """The value of a block that is exactly one `return <value>`, else None."""
    cst = ctx.cst
    if len(body) == 1 and isinstance(body[0], cst.SimpleStatementLine) and len(body[0].body) == 1 \
            and isinstance(body[0].body[0], cst.Return) and body[0].body[0].value is not None:
        return body[0].body[0].value
    return None


def _next_statement(ctx: Context, statement) -> Any:
    """The statement right after this one in its block, or None."""
    block = ctx.parent(statement)
    body = list(getattr(block, "body", ()))
    at = next((i for i, s in enumerate(body) if s is statement), None)
    return body[at + 1] if at is not None and at + 1 < len(body) else None


def _arg(ctx: Context, node) -> str:
    return ctx.code(node.with_changes(lpar=[], rpar=[])) if hasattr(node, "lpar") else ctx.code(node)
