"""Rewrite: a boolean-mask read that only feeds a reduction, a masked copy between tensors of
one shape, and a count of nonzero elements, without the data-dependent shape."""
from __future__ import annotations

from .base import (
    Context, Decline, Edit, OtherForm, Outcome, Rewrite, _dotted, _leading_with_comments, _walk, side_effect,
    single_assignment,
)
from .where import _next_statement, _shape_operands
from .zero_dim import KeepZeroDim

# The reductions of a masked read fix rewrites: (method, its one positional argument or None).
REDUCTIONS = {("sum", None), ("mean", None), ("sum", "0"), ("mean", "0")}


class MaskedReduction(Rewrite):
    """`x[mask].sum()`, `x[mask].mean()`, `x[mask].sum(0)`, `x[mask].mean(0)` and
    `x.masked_select(mask).sum()` / `.mean()` (directly, or through a name bound to the read
    and read once, by the next statement) become a `torch.where(mask, x, 0)` reduction.

    Dynamo 2.13 breaks on a boolean-mask read (GB0036: its shape depends on the data);
    `torch.where` of a mask and the reductions trace (measured). `x[mask]` requires
    `mask.shape == x.shape[:mask.dim()]` (IndexError otherwise) and picks the rows of `x` where
    the mask holds: summing `torch.where(mask, x, 0)` (the mask given trailing dimensions of
    one) over the mask's dimensions adds the same rows, plus zeros; a mean divides by the
    number of rows picked (`mask.sum()`), so no row picked gives NaN as before. Unpicked values
    are selected away, not multiplied by zero, so an inf or NaN there changes nothing, and the
    gradient reaches the picked values only, as through the index. `masked_select` broadcasts
    the mask and `x` as `torch.where` does. Operands written more than once must be names,
    attributes or element-wise expressions of them (evaluating them twice changes nothing).
    """

    name = "masked-reduction"
    codes = ("SFX401",)

    def plan(self, ctx: Context, region) -> Edit:
        cst = ctx.cst
        read = _masked_read(ctx, region)
        tensor, mask, selected = read
        parent = ctx.parent(selected)
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1 \
                and isinstance(parent.targets[0].target, cst.Name):
            return self._through_name(ctx, region, parent, read)
        if isinstance(parent, cst.Assign) and isinstance(parent.targets[0].target, cst.Subscript):
            raise OtherForm("the masked read is copied into a masked write")
        reduction = _reduction_of(ctx, selected, selected)
        new = _reduced(ctx, tensor, mask, reduction, selected)
        return Edit(reduction, new.with_changes(lpar=reduction.lpar, rpar=reduction.rpar), Outcome(
            ctx.path, region.code, region.line, region.col, self.name,
            summary=f"`{ctx.code(reduction)}` became a torch.where reduction"))

    def _through_name(self, ctx: Context, region, assign, read) -> Edit:
        """`kept = x[mask]` directly followed by the one statement that reads `kept`, as
        `kept.mean()`: that statement with the reduction in its place."""
        cst = ctx.cst
        tensor, mask, _ = read
        name = assign.targets[0].target.value
        line = ctx.parent(assign)
        scope = ctx.scopes.get(assign)
        after = _next_statement(ctx, line)
        if scope is None or after is None or len(scope.assignments[name]) != 1:
            raise Decline(f"`{name}` holds the masked read, and fix rewrites it only where the next statement "
                          "reads it once, in a sum or mean")
        uses = [access.node for access in scope.accesses[name]]
        inside = {id(sub) for sub in _walk(cst, after)}
        if len(uses) != 1 or id(uses[0]) not in inside:
            raise Decline(f"`{name}` holds the masked read and is read {len(uses)} times (or not by the next "
                          "statement), where fix needs one sum or mean of it")
        reduction = _reduction_of(ctx, uses[0], read[2])
        new = _reduced(ctx, tensor, mask, reduction, read[2])

        class Replace(cst.CSTTransformer):
            def on_leave(self, original_node, updated_node):
                return new if original_node is reduction else updated_node

        replaced = after.visit(Replace()).with_changes(
            leading_lines=[*_leading_with_comments(ctx, line), *after.leading_lines])
        summary = f"`{name} = {ctx.code(read[2])}` and its `{ctx.code(reduction)}` became a torch.where reduction"
        return Edit(line, replaced, Outcome(ctx.path, region.code, region.line, region.col, self.name, summary=summary),
                    removed=(after,))


class MaskedCopy(Rewrite):
    """`y[mask] = x[mask]`, where `y` is a local tensor the function computed (one plain
    assignment, not read since) and `mask`, `x` and `y` are element-wise expressions of the same
    operands (so one shape), becomes `y = torch.where(mask, x, y)`.

    Dynamo 2.13 breaks on the masked read `x[mask]` (GB0036); `torch.where` traces (measured).
    With one shape the write sets exactly the elements where the mask holds to x's; rebinding
    `y` instead of writing into it is the same to every later read, since nothing else holds
    the tensor `y` was (it was made by an element-wise expression and not read before the write).
    """

    name = "masked-copy"
    codes = ("SFX401",)

    def plan(self, ctx: Context, region) -> Edit:
        cst = ctx.cst
        tensor, mask, selected = _masked_read(ctx, region)
        assign = ctx.parent(selected)
        line = ctx.parent(assign)
        target = assign.targets[0].target if isinstance(assign, cst.Assign) and len(assign.targets) == 1 else None
        if not (isinstance(target, cst.Subscript) and assign.value is selected
                and isinstance(line, cst.SimpleStatementLine) and isinstance(target.value, cst.Name)
                and _only_index(ctx, target) is not None and ctx.code(_only_index(ctx, target)) == ctx.code(mask)):
            raise OtherForm("the masked read is neither reduced nor copied into `y[mask]`")
        written = target.value
        made = single_assignment(ctx, written)
        if made is None or isinstance(made, (cst.Name, cst.Attribute)) or _read_between(ctx, written, made, line):
            raise Decline(f"`{written.value}` is not a tensor this function made and has not read since, so "
                          "another name may hold it and see the write")
        shapes = {side: frozenset(_operands(ctx, expr, side)) for side, expr in
                  (("mask", mask), ("copied value", tensor), ("written tensor", made))}
        if len(set(shapes.values())) != 1:
            raise Decline("the mask, the copied value and the written tensor are not element-wise expressions of "
                          "the same operands, so their shapes may differ")
        ctx.imports_torch()
        new = cst.parse_statement(f"{written.value} = torch.where({ctx.code(mask)}, {ctx.code(tensor)}, "
                                  f"{written.value})\n").with_changes(leading_lines=line.leading_lines)
        return Edit(line, new, Outcome(ctx.path, region.code, region.line, region.col, self.name,
                                       summary=f"`{ctx.code(assign.targets[0].target)} = ...` became torch.where"))


class CountNonzero(KeepZeroDim):
    """`len(torch.nonzero(c))`, `torch.nonzero(c).shape[0]` and `c.nonzero().size(0)` become
    `torch.count_nonzero(c)` where the count only feeds tensor arithmetic (KeepZeroDim's checks).

    Dynamo 2.13 breaks on nonzero (GB0036: its row count depends on the data);
    `torch.count_nonzero` traces (measured). nonzero has one row per nonzero element of `c`,
    whatever its rank, so the count is the same number, held as a 0-d int64 tensor, which in
    arithmetic with a tensor gives the values the Python int gave.
    """

    name = "count-nonzero"
    codes = ("SFX401",)

    def plan(self, ctx: Context, region) -> Edit:
        cst = ctx.cst
        calls = ctx.at(region.line, region.col, cst.Call)
        call = next((c for c in calls if _nonzero_operand(ctx, c) is not None), None)
        if call is None:
            raise OtherForm("the construct is not a nonzero call")
        count = _count_around(ctx, call)
        if count is None:
            raise Decline("the nonzero result is used for more than its row count (len(), .shape[0], .size(0)), "
                          "so its data-dependent shape is needed")
        operand = _nonzero_operand(ctx, call)
        effect = side_effect(ctx, operand)
        if effect:
            raise Decline(f"the nonzero operand has a side effect (`{effect}`)")
        ctx.imports_torch()
        return self._replace(ctx, region, count, f"torch.count_nonzero({ctx.code(operand)})")


def _masked_read(ctx: Context, region):
    """(x, mask, the read) of `x[mask]` or `x.masked_select(mask)` at the region; OtherForm otherwise."""
    cst = ctx.cst
    for node in ctx.at(region.line, region.col, (cst.Subscript, cst.Call)):
        if isinstance(node, cst.Subscript) and _only_index(ctx, node) is not None:
            return node.value, _only_index(ctx, node), node
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
                and node.func.attr.value == "masked_select" \
                and len(node.args) == 1 and not node.args[0].keyword and not node.args[0].star:
            return node.func.value, node.args[0].value, node
    raise OtherForm("the construct is not a read through one boolean mask (`x[mask]`, `x.masked_select(mask)`)")


def _only_index(ctx: Context, subscript):
    cst = ctx.cst
    elements = subscript.slice
    if len(elements) == 1 and isinstance(elements[0].slice, cst.Index) and elements[0].slice.star is None:
        return elements[0].slice.value
    return None


def _reduction_of(ctx: Context, selected, read):
    """The `selected.sum()` / `.mean()` / `.sum(0)` / `.mean(0)` call around a masked read
    (`selected` is the read itself or a name holding it)."""
    cst = ctx.cst
    attribute = ctx.parent(selected)
    call = ctx.parent(attribute) if isinstance(attribute, cst.Attribute) else None
    if not (isinstance(call, cst.Call) and call.func is attribute):
        raise Decline(f"the masked read `{ctx.code(selected)}` is used as a tensor of its own (its shape "
                      "depends on the data), not only summed or averaged")
    args = call.args
    argument = ctx.code(args[0].value) if len(args) == 1 and not args[0].keyword and not args[0].star else None
    if (attribute.attr.value, argument) not in REDUCTIONS or len(args) > 1 or args and argument is None:
        raise Decline(f"the masked read is reduced by `{ctx.code(call)}`, and fix rewrites only .sum()/.mean() "
                      "over all of it or over dimension 0")
    if isinstance(read, cst.Call) and argument is not None:
        raise Decline("a masked_select result is reduced over a dimension, which it does not keep")
    return call


def _reduced(ctx: Context, tensor, mask, reduction, read):
    """The torch.where form of `reduction`, the sum or mean of the masked read `read`."""
    cst = ctx.cst
    for what, expr in (("tensor", tensor), ("mask", mask)):
        effect = side_effect(ctx, expr)
        if effect:
            raise Decline(f"the {what} has a side effect (`{effect}`)")
        _operands(ctx, expr, what)  # written twice: must be safe to evaluate again
    x, m = _text(ctx, tensor), _text(ctx, mask)
    arguments = f"{ctx.code(mask)}, {ctx.code(tensor)}, 0"
    method = reduction.func.attr.value
    if isinstance(read, cst.Call):  # masked_select: the mask and x broadcast, as in torch.where
        where = f"torch.where({arguments})"
        total, count = f"{where}.sum()", f"({m} & torch.ones_like({x}, dtype=torch.bool)).sum()"
    elif _same_operands(ctx, tensor, mask):  # one shape: x[mask] holds single elements
        where = f"torch.where({arguments})"
        total, count = f"{where}.sum()", f"{m}.sum()"
    else:  # the mask covers x's leading dimensions: x[mask] holds rows
        expanded = f"{m}.reshape({m}.shape + (1,) * ({x}.dim() - {m}.dim()))"
        where = f"torch.where({expanded}, {x}, 0)"
        if reduction.args:
            total, count = f"{where}.flatten(0, {m}.dim() - 1).sum(0)", f"{m}.sum()"
        else:
            total, count = f"{where}.sum()", f"{expanded}.expand_as({x}).sum()"
    ctx.imports_torch()
    return cst.parse_expression(total if method == "sum" else f"{total} / {count}")


def _operands(ctx: Context, expr, what: str) -> set[str]:
    """The operands that give an element-wise expression its shape (names bound once followed,
    Python numbers left out: where._shape_operands); Decline where it is not one."""
    try:
        return _shape_operands(ctx, expr, what)
    except Decline:
        raise Decline(f"the {what} `{ctx.code(expr)}` is not a name or an element-wise expression, and fix "
                      "would evaluate it twice") from None


def _same_operands(ctx: Context, tensor, mask) -> bool:
    """Are the tensor and the mask element-wise expressions of the same operands (one shape),
    following names bound once to such expressions?"""
    try:
        return _operands(ctx, tensor, "tensor") == _operands(ctx, mask, "mask")
    except Decline:
        return False


def _text(ctx: Context, expr) -> str:
    cst = ctx.cst
    text = ctx.code(expr)
    return text if isinstance(expr, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or expr.lpar else f"({text})"


def _read_between(ctx: Context, name, value, line) -> bool:
    """Is `name` read between its assignment (`value`) and the statement `line`?"""
    scope = ctx.scopes.get(name)
    start, end = ctx.positions[value].start.line, ctx.positions[line].start.line
    return any(start < ctx.positions[a.node].start.line < end for a in scope.accesses[name.value]
               if a.node in ctx.positions)


def _nonzero_operand(ctx: Context, call):
    """`c` of `torch.nonzero(c)` / `c.nonzero()` (without other arguments), else None."""
    cst = ctx.cst
    if _dotted(ctx, call.func) == "torch.nonzero" and len(call.args) == 1 and not call.args[0].keyword:
        return call.args[0].value
    if isinstance(call.func, cst.Attribute) and call.func.attr.value == "nonzero" and not call.args \
            and _dotted(ctx, call.func) != "torch.nonzero":
        return call.func.value
    return None


def _count_around(ctx: Context, call):
    """The `len(call)` / `call.shape[0]` / `call.size(0)` expression around a nonzero call, or None."""
    cst = ctx.cst
    parent = ctx.parent(call)
    if isinstance(parent, cst.Arg):
        outer = ctx.parent(parent)
        if isinstance(outer, cst.Call) and isinstance(outer.func, cst.Name) and outer.func.value == "len" \
                and len(outer.args) == 1:
            return outer
        return None
    if isinstance(parent, cst.Attribute) and parent.value is call:
        outer = ctx.parent(parent)
        if parent.attr.value == "shape" and isinstance(outer, cst.Subscript) and _only_index(ctx, outer) is not None \
                and ctx.code(_only_index(ctx, outer)) == "0":
            return outer
        if parent.attr.value == "size" and isinstance(outer, cst.Call) and len(outer.args) == 1 \
                and ctx.code(outer.args[0].value) == "0":
            return outer
    return None
