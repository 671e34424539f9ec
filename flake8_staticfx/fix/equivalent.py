"""Rewrite: a call dynamo skips that has a traceable equivalent of the same value."""
from __future__ import annotations

from .base import Context, Decline, Edit, OtherForm, Outcome, Rewrite, _dotted, class_binding


def _always(ctx: Context, operands) -> bool:
    return True


def _a_list_attribute(ctx: Context, operands) -> bool:
    """Is the one operand a `self.<name>` its class binds once, to `list(...)` or a list display?"""
    cst = ctx.cst
    value = class_binding(ctx, operands[0]) if isinstance(operands[0], cst.Attribute) else None
    return isinstance(value, (cst.List, cst.ListComp)) or isinstance(value, cst.Call) and isinstance(
        value.func, cst.Name) and value.func.value == "list"


# dotted name -> (number of positional arguments, the equivalent with {0}, {1}, ... for them,
# the check that the operands make the two equal)
EQUIVALENTS = {
    "torch.is_same_size": (2, "{0}.shape == {1}.shape", _always),
    "copy.copy": (1, "list({0})", _a_list_attribute),
}


class TraceableEquivalent(Rewrite):
    """`torch.is_same_size(a, b)` becomes `a.shape == b.shape`, and `copy.copy(self.items)`
    of a list attribute (bound once in its class, to `list(...)` or a list display) becomes
    `list(self.items)`.

    Dynamo 2.13 breaks on `torch.is_same_size` (GB0208, a C function it does not trace) and
    skips `copy.copy` (GB0007), both measured on tests/cases; comparing two `torch.Size`s is
    decided while tracing (with a guard on the shapes), and `list()` of a list traces, without
    a break. Each pair gives the same value (the bool of "the sizes are equal"; a new list of
    the same items) and evaluates each argument once.
    """

    name = "traceable-equivalent"
    codes = ("SFX203",)

    def plan(self, ctx: Context, region) -> Edit:
        cst = ctx.cst
        calls = [c for c in ctx.at(region.line, region.col, cst.Call) if _dotted(ctx, c.func) in EQUIVALENTS]
        if not calls:
            raise OtherForm("the call has no traceable equivalent")
        call = calls[0]
        count, template, applies = EQUIVALENTS[_dotted(ctx, call.func)]
        if len(call.args) != count or any(a.keyword or a.star for a in call.args):
            raise Decline(f"`{ctx.code(call.func)}` is called with other than {count} positional arguments")
        operands = [a.value for a in call.args]
        if not applies(ctx, operands):
            equivalent = template.format(*map(ctx.code, operands))
            raise Decline(f"fix cannot show that `{ctx.code(call)}` equals `{equivalent}` here")
        texts = [ctx.code(v) if isinstance(v, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or v.lpar
                 else f"({ctx.code(v)})" for v in operands]
        new = cst.parse_expression(template.format(*texts))
        if isinstance(new, cst.Comparison) and not isinstance(ctx.parent(call), (cst.If, cst.Assign, cst.Return)):
            new = new.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        new = new.with_changes(lpar=[*call.lpar, *new.lpar], rpar=[*new.rpar, *call.rpar])
        return Edit(call, new, Outcome(ctx.path, region.code, region.line, region.col, self.name,
                                       summary=f"`{ctx.code(call.func)}(...)` became `{template.format(*texts)}`"))
