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


def _a_name_and_a_number(ctx: Context, operands) -> bool:
    """A tensor named without side effects (it is read more than once) and a number literal."""
    cst = ctx.cst
    return isinstance(operands[0], (cst.Name, cst.Attribute)) and isinstance(operands[1], (cst.Float, cst.Integer))


def _result_type_with_number(ctx: Context, operands) -> str:
    """torch's promotion of a tensor with a Python number: a float keeps a floating or complex
    tensor's dtype and gives the default dtype otherwise; an int keeps every dtype but bool's,
    which becomes int64 (what `x * 2.0` and `x + 1` give)."""
    if isinstance(operands[1], ctx.cst.Float):
        return "{0}.dtype if {0}.is_floating_point() or {0}.is_complex() else torch.get_default_dtype()"
    return "{0}.dtype if {0}.dtype != torch.bool else torch.int64"


# dotted name -> (number of positional arguments, the equivalent with {0}, {1}, ... for them
# (or the function of the operands that gives it), the check that the operands make the two equal)
EQUIVALENTS = {
    "torch.is_same_size": (2, "{0}.shape == {1}.shape", _always),
    "copy.copy": (1, "list({0})", _a_list_attribute),
    "torch.result_type": (2, _result_type_with_number, _a_name_and_a_number),
}


class TraceableEquivalent(Rewrite):
    """`torch.is_same_size(a, b)` becomes `a.shape == b.shape`, and `copy.copy(self.items)`
    of a list attribute (bound once in its class, to `list(...)` or a list display) becomes
    `list(self.items)`; `torch.result_type(x, 2.0)` of a tensor and a number literal becomes the
    dtype torch's promotion gives (`x.dtype` if x is floating or complex, else the default dtype).

    Dynamo 2.13 breaks on `torch.is_same_size` (GB0208, a C function it does not trace) and
    skips `copy.copy` and `torch.result_type` (GB0007), measured on tests/cases; comparing two
    `torch.Size`s is decided while tracing (with a guard on the shapes), `list()` of a list
    traces, and so do a tensor's dtype and its is_floating_point()/is_complex(), without a break. Each pair gives the same value (the bool of "the sizes are equal"; a new list of
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
            if callable(template):
                raise Decline(f"fix has an equivalent of `{ctx.code(call.func)}` only for a named tensor and a "
                              f"number literal, not for `{ctx.code(call)}`")
            equivalent = template.format(*map(ctx.code, operands))
            raise Decline(f"fix cannot show that `{ctx.code(call)}` equals `{equivalent}` here")
        template = template(ctx, operands) if callable(template) else template
        texts = [ctx.code(v) if isinstance(v, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or v.lpar
                 else f"({ctx.code(v)})" for v in operands]
        new = cst.parse_expression(template.format(*texts))
        if isinstance(new, (cst.Comparison, cst.IfExp)) \
                and not isinstance(ctx.parent(call), (cst.If, cst.Assign, cst.Return, cst.Arg)):
            new = new.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        new = new.with_changes(lpar=[*call.lpar, *new.lpar], rpar=[*new.rpar, *call.rpar])
        return Edit(call, new, Outcome(ctx.path, region.code, region.line, region.col, self.name,
                                       summary=f"`{ctx.code(call.func)}(...)` became `{template.format(*texts)}`"))
