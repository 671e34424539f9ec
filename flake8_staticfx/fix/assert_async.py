"""Rewrite: `if <tensor condition>: raise` becomes torch._assert_async."""
from __future__ import annotations

from .base import (
    Context, Decline, Edit, OtherForm, Outcome, Rewrite, _if_at, _is_elif, _leading_with_comments, tensor_condition,
)


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
        handler = _enclosing_try(ctx, statement)
        if handler is not None:
            raise Decline(f"the raise is inside a `try` (line {ctx.positions[handler].start.line}), whose handlers "
                          "would see a RuntimeError instead")
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


def _enclosing_try(ctx: Context, statement):
    """The innermost `try` around the statement within its function, or None."""
    cst = ctx.cst
    node = ctx.parent(statement)
    while node is not None and not isinstance(node, (cst.FunctionDef, cst.Module)):
        if isinstance(node, cst.Try):
            return node
        node = ctx.parent(node)
    return None


class AssertToAsync(Rewrite):
    """`torch._assert(<tensor condition>, "message")` becomes `torch._assert_async(...)`.

    Dynamo 2.13 breaks on `torch._assert` of a tensor (GB0033, data-dependent operator: it needs
    the tensor's truth in Python); `torch._assert_async` of a single-element tensor traces into
    the graph without a break (measured). `torch._assert` already needs a single-element
    condition eagerly (it evaluates `not condition`), so the assertion accepts what it accepted;
    on success the outputs are unchanged, on failure a RuntimeError replaces the AssertionError.
    Declined when the message is not a string literal (a formatted message would be evaluated
    on every call), when the call's value is used, or the condition has a side effect.
    """

    name = "assert-async"
    codes = ("SFX104",)

    def plan(self, ctx: Context, region) -> Edit:
        cst = ctx.cst
        calls = [c for c in ctx.at(region.line, region.col, cst.Call) if ctx.code(c.func) == "torch._assert"]
        if not calls:
            found = ctx.at(region.line, region.col, cst.Call)
            what = f"`{ctx.code(found[0].func)}(...)`" if found else "the construct"
            raise OtherForm(f"{what} is neither torch._assert nor a math function of a tensor, the forms of "
                            "SFX104 fix rewrites")
        call = calls[0]
        if not isinstance(ctx.parent(call), cst.Expr):
            raise Decline("the value of torch._assert(...) is used")
        if len(call.args) not in (1, 2) or any(arg.keyword is not None or arg.star for arg in call.args):
            raise Decline("torch._assert is called with other than (condition, message)")
        message = call.args[1].value if len(call.args) == 2 else None
        if message is not None and not isinstance(message, (cst.SimpleString, cst.ConcatenatedString)):
            raise Decline("the message is computed, and torch._assert_async takes a constant string")
        test, negated = tensor_condition(ctx, call.args[0].value, zero_dim=False)
        condition = f"torch.logical_not({ctx.code(test)})" if negated else ctx.code(test)
        text = ctx.code(message) if message is not None else repr(f"assertion failed: {ctx.code(call.args[0].value)}")
        new = cst.parse_expression(f"torch._assert_async({condition}, {text})")
        return Edit(call, new, Outcome(ctx.path, region.code, region.line, region.col, self.name,
                                       summary="torch._assert became torch._assert_async"))
