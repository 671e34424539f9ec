"""Rewrite: a call dynamo skips that has a traceable equivalent of the same value."""
from __future__ import annotations

from .base import Context, Decline, Edit, OtherForm, Outcome, Rewrite, _dotted

# dotted name -> (number of positional arguments, the equivalent with {0}, {1}, ... for them)
EQUIVALENTS = {
    "torch.is_same_size": (2, "{0}.shape == {1}.shape"),
}


class TraceableEquivalent(Rewrite):
    """`torch.is_same_size(a, b)` becomes `a.shape == b.shape`.

    Dynamo 2.13 skips `torch.is_same_size` (GB0007, a C function it does not trace); comparing
    two `torch.Size`s is decided while tracing (with a guard on the shapes), without a break.
    Both give the Python bool of "the sizes are equal" and evaluate each argument once.
    """

    name = "traceable-equivalent"
    codes = ("SFX203",)

    def plan(self, ctx: Context, region) -> Edit:
        cst = ctx.cst
        calls = [c for c in ctx.at(region.line, region.col, cst.Call) if _dotted(ctx, c.func) in EQUIVALENTS]
        if not calls:
            raise OtherForm("the call has no traceable equivalent")
        call = calls[0]
        count, template = EQUIVALENTS[_dotted(ctx, call.func)]
        if len(call.args) != count or any(a.keyword or a.star for a in call.args):
            raise Decline(f"`{ctx.code(call.func)}` is called with other than {count} positional arguments")
        operands = [a.value for a in call.args]
        texts = [ctx.code(v) if isinstance(v, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or v.lpar
                 else f"({ctx.code(v)})" for v in operands]
        new = cst.parse_expression(template.format(*texts))
        if not isinstance(ctx.parent(call), (cst.If, cst.Assign, cst.Return)):
            new = new.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        new = new.with_changes(lpar=[*call.lpar, *new.lpar], rpar=[*new.rpar, *call.rpar])
        return Edit(call, new, Outcome(ctx.path, region.code, region.line, region.col, self.name,
                                       summary=f"`{ctx.code(call.func)}(...)` became `{template.format(*texts)}`"))
