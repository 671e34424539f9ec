"""Rewrite: a data-dependent if/else or ternary of element-wise arms becomes torch.where."""
from __future__ import annotations

from typing import Any

from .base import (
    Context, Decline, Edit, Outcome, Rewrite, _if_at, _is_boolean, _is_elif, _leading_with_comments, _walk,
    elementwise_leaves, side_effect, tensor_condition,
)


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
        read_by_test = {sub.value for sub in _walk(cst, test) if isinstance(sub, cst.Name)} & assigned
        if len(then) > 1 and read_by_test:
            raise Decline(f"the condition reads `{sorted(read_by_test)[0]}`, which the arms assign, and one "
                          "torch.where per name would test it again after the first assignment")
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
