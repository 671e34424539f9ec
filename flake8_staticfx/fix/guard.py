"""Rewrite: keep a print dynamo can reorder after the graph; else guard print, logging and
warnings.warn statements with is_compiling()."""
from __future__ import annotations

from ..fixable import side_effect_kind
from .base import (
    GUARD, Context, Decline, Edit, OtherForm, Outcome, Rewrite, _dotted, _walk, side_effect, single_assignment,
)
from .zero_dim import _mutated_in_place


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

    A print whose arguments dynamo can reorder (unreorderable_argument says why not) keeps its
    output under compile instead: `torch._dynamo.config.reorderable_logging_functions.add(print)`
    after the module's imports makes dynamo 2.13 record the call and run it after the graph
    with the same arguments (measured: one graph, the eager text printed). Logger methods are
    bound methods, which 2.13 does not reorder (GB0291 still), and there is no logging form
    dynamo traces, so they and warnings.warn keep the guard; each guard says why.
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
        why_not = None
        if self._kind(ctx, call) == "print":
            why_not = unreorderable_argument(ctx, call)
            if why_not is None:
                return Edit(line, line, Outcome(ctx.path, region.code, region.line, region.col, self.name,
                                                summary="print kept: registered in torch._dynamo.config."
                                                        "reorderable_logging_functions, it prints after the graph"),
                            module_lines=(REORDER_PRINT,))
        guarded = cst.If(
            test=cst.parse_expression(GUARD),
            body=cst.IndentedBlock(body=[line.with_changes(leading_lines=[])]),
            leading_lines=line.leading_lines,
        )
        summary = f"`{ctx.code(call.func)}(...)` guarded by `if {GUARD}:`" + (
            f" (not reordered: {why_not})" if why_not else " (no form of it dynamo traces or reorders)")
        return Edit(line, guarded, Outcome(ctx.path, region.code, region.line, region.col, self.name,
                                           summary=summary))


def _tensor_argument(ctx: Context, value, depth: int = 0) -> bool:
    """Did the analysis trace a tensor (not a shape, a size or a captured `.item()` number) at
    this expression, or at the one value of the local name it is?"""
    traced = ctx.traced.get(ctx.span(value), ())
    if traced:
        return not any(node.target in PYTHON_VALUED for node in traced)
    if isinstance(value, ctx.cst.Name) and depth < 3:
        assigned = single_assignment(ctx, value)
        return assigned is not None and _tensor_argument(ctx, assigned, depth + 1)
    return False


# Graph nodes whose value is a Python object (a torch.Size, a number), not a tensor.
PYTHON_VALUED = frozenset({"getattr", "size", "dim", "numel", "item", "tolist", "stride"})
REORDER_PRINT = "torch._dynamo.config.reorderable_logging_functions.add(print)  # flake8-staticfx fix, process-wide"


def unreorderable_argument(ctx: Context, call) -> str | None:
    """Why dynamo could not reorder this print after the graph, or None where it can: each
    argument must be a string or number literal or a tensor the analysis traced (dynamo 2.13
    reorders calls whose arguments are tensors and constants: DebuggingVariable.can_reorder_logs;
    a torch.Size breaks, GB0296), and no tensor it reads may be changed in place in the file,
    since the reordered print shows the tensor as it is after the graph ran."""
    cst = ctx.cst
    for arg in call.args:
        value = arg.value
        if arg.star:
            return f"`{ctx.code(arg)}` unpacks a sequence"
        if arg.keyword is not None and arg.keyword.value not in ("sep", "end"):
            return f"`{ctx.code(arg)}` is passed by keyword"
        if isinstance(value, (cst.SimpleString, cst.Integer, cst.Float)):
            continue
        if not _tensor_argument(ctx, value):
            return f"`{ctx.code(value)}` is neither a literal nor a tensor the graph computes"
        for sub in _walk(cst, value):
            if isinstance(sub, (cst.Name, cst.Attribute)) and not isinstance(ctx.parent(sub), cst.Attribute) \
                    and _mutated_in_place(ctx, sub):
                return f"`{ctx.code(sub)}` is changed in place in this file, and the reordered print would show " \
                       "it changed"
    return None
