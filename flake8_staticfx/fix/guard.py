"""Rewrite: guard print, logging and warnings.warn statements with is_compiling()."""
from __future__ import annotations

from ..fixable import side_effect_kind
from .base import GUARD, Context, Decline, Edit, OtherForm, Outcome, Rewrite, _dotted, side_effect


class GuardSideEffect(Rewrite):
    """`print(...)`, `logger.info(...)` and `warnings.warn(...)` statements in a compiled region
    are wrapped in `if not torch.compiler.is_compiling():`.

    Dynamo 2.13 breaks on print (GB0059), on `logging.Logger` methods (GB0291) and on
    `warnings.warn` (GB0007, the C builtin `_warnings.warn` is skipped). It evaluates
    `torch.compiler.is_compiling()` to the constant True while tracing and prunes the guarded
    branch without a break (measured: one graph, no break record). Eagerly the function returns
    False, so an eager run still prints, logs and warns; under torch.compile the message is not
    written. Declined where the call's value is used, where an argument has a side effect the
    guard would skip under compile, or where the file does not `import torch`.
    """

    name = "guard-side-effect"
    codes = ("SFX201", "SFX202", "SFX203")

    def _kind(self, ctx: Context, call) -> str | None:
        dotted = _dotted(ctx, call.func)
        return side_effect_kind(dotted) if dotted else None

    def plan(self, ctx: Context, region) -> Edit:
        cst = ctx.cst
        calls = [c for c in ctx.at(region.line, region.col, cst.Call) if self._kind(ctx, c)]
        if not calls:
            found = ctx.at(region.line, region.col, cst.Call)
            what = f"`{ctx.code(found[0].func)}(...)`" if found else "the construct"
            raise OtherForm(f"{what} is not a print, logging or warnings.warn call; only those are guarded, "
                            "since skipping them under compile changes nothing but the output")
        call = calls[0]
        ctx.imports_torch()
        effect = next((side_effect(ctx, arg.value) for arg in call.args if side_effect(ctx, arg.value)), None)
        if effect:
            raise Decline(f"the argument `{effect}` has a side effect that the guard would skip under compile")
        parent = ctx.parent(call)
        if isinstance(parent, cst.If) and parent.test is call:  # if logger.isEnabledFor(...):
            test = cst.parse_expression(f"{GUARD} and {ctx.code(call)}")
            return Edit(parent, ("test", test), Outcome(
                ctx.path, region.code, region.line, region.col, self.name,
                summary=f"the `if {ctx.code(call)}` now also requires {GUARD}"))
        if not isinstance(parent, cst.Expr):
            raise Decline(f"the value of `{ctx.code(call.func)}(...)` is used, so the call cannot be skipped")
        line = ctx.parent(parent)
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
            raise Decline("the call shares its line with other statements (`;`)")
        guarded = cst.If(
            test=cst.parse_expression(GUARD),
            body=cst.IndentedBlock(body=[line.with_changes(leading_lines=[])]),
            leading_lines=line.leading_lines,
        )
        return Edit(line, guarded, Outcome(ctx.path, region.code, region.line, region.col, self.name,
                                           summary=f"`{ctx.code(call.func)}(...)` guarded by `if {GUARD}:`"))
