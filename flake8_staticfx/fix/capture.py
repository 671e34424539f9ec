"""Rewrite: turn on the dynamo setting that captures a break, where every break it captures in
the file has a form the setting is shown safe for."""
from __future__ import annotations

from ..rules import RULES
from .base import Context, Decline, Edit, OtherForm, Outcome, Rewrite, _call_name, _dotted

# Tensor methods and torch functions whose size arguments dynamo 2.13 takes as unbacked
# integers under capture_scalar_outputs (measured on tests/cases: repeat, expand, new_zeros,
# zeros, topk and slice bounds trace; roll, select, narrow, eye and F.pad raise
# GuardOnDataDependentSymNode or an internal error, so they are not here).
SIZE_TAKING = frozenset({"repeat", "expand", "new_zeros", "new_ones", "new_empty", "zeros", "ones", "empty", "topk"})
# Calls whose output size depends on the data, captured under capture_dynamic_output_shape_ops.
DATA_SIZED = frozenset({"nonzero", "argwhere", "where", "unique", "unique_consecutive", "bincount",
                        "repeat_interleave", "masked_select"})
# What reads the size of a data-sized tensor (as a Python value): under the setting that size is
# an unbacked symbol, and a guard on it breaks again or raises (tests/cases/val_size_queries.py,
# trn_multi_lora.py: `if rows.numel() > 0`).
SIZE_READS = frozenset({"shape", "size", "numel", "dim", "item", "tolist"})


# The switches fix may turn on (each captures the breaks of the rules whose captured_by names it).
SETTINGS = ("capture_scalar_outputs", "capture_dynamic_output_shape_ops")


def setting_line(setting: str) -> str:
    return f"torch._dynamo.config.{setting} = True  # flake8-staticfx fix, process-wide"


class CaptureSetting(Rewrite):
    """A break that a dynamo setting captures (a tensor read as a size under
    capture_scalar_outputs, a data-sized result under capture_dynamic_output_shape_ops) is
    removed by `torch._dynamo.config.<setting> = True` after the module's imports: a process-wide
    switch that changes nothing eagerly, which the lint reads back (so a second fix changes
    nothing). Dynamo then traces the size as an unbacked symbol, which works only where nothing
    guards on it: an unbacked size given to roll/select/narrow/eye/F.pad, or a data-sized
    tensor whose size a Python `if`/`len()` reads, breaks again or raises at compile time
    (measured with torch 2.13 on tests/cases). So each captured break must have a form shown
    safe: for capture_scalar_outputs, a tensor (or its `.item()`/`int()`) used as a slice bound
    or as the size argument of repeat/expand/zeros/new_zeros/topk and their like; for
    capture_dynamic_output_shape_ops, a mask read or a nonzero/unique/bincount/repeat_interleave
    call whose result is returned, or bound to names used only as tensors. `plan_file` turns
    the setting on only where every break of the setting's codes in the file is such, and the
    lint, run under the setting, reports no break the file did not have."""

    name = "capture-setting"
    codes = ("SFX102", "SFX401")

    def plan(self, ctx: Context, region) -> Edit:
        if region.code not in self.codes:
            raise OtherForm(f"fix turns a capture setting on only for {' and '.join(self.codes)}")
        setting = setting_of(region.code)
        node = _size_read(ctx, region) if region.code == "SFX102" else _data_sized(ctx, region)
        return Edit(node, None, Outcome(ctx.path, region.code, region.line, region.col, self.name,
                                        summary=f"captured: torch._dynamo.config.{setting} = True added "
                                                "after the imports (process-wide)"),
                    module_lines=(setting_line(setting),))


def setting_of(code: str) -> str:
    return next(s for s in RULES[code].captured_by if s in SETTINGS)


def _size_read(ctx: Context, region):
    """The construct of a region where a tensor is read as a size: a subscript whose slice
    bounds include it, or a size-taking call it is an argument of (directly or through
    `.item()`/`int()`); OtherForm otherwise."""
    cst = ctx.cst
    for node in ctx._by_start.get((region.line, region.col), ()):
        if isinstance(node, cst.Subscript) and _reads_slices(ctx, node):
            return node
        if isinstance(node, cst.Call) and _size_taking(ctx, node):
            return node
        if isinstance(node, cst.Call) and _converts(ctx, node):
            arg = ctx.parent(node)
            if isinstance(arg, cst.Arg) and _size_taking(ctx, ctx.parent(arg)):
                return node
            if isinstance(arg, cst.Slice):
                return node
    raise OtherForm("capture_scalar_outputs is shown safe only for a tensor read as a slice bound or as the size "
                    f"of {', '.join(sorted(SIZE_TAKING))}, not for this use")


def _reads_slices(ctx: Context, subscript) -> bool:
    """A read (not a store) whose index holds only slices and Ellipsis."""
    cst = ctx.cst
    parent = ctx.parent(subscript)
    if isinstance(parent, (cst.AssignTarget, cst.AugAssign)) or isinstance(parent, cst.Del):
        return False
    return all(isinstance(element.slice, cst.Slice) or (
        isinstance(element.slice, cst.Index) and isinstance(element.slice.value, cst.Ellipsis))
        for element in subscript.slice)


def _size_taking(ctx: Context, call) -> bool:
    cst = ctx.cst
    if not isinstance(call, cst.Call) or _call_name(cst, call) not in SIZE_TAKING:
        return False
    owner = _dotted(ctx, call.func.value) if isinstance(call.func, cst.Attribute) else None
    return owner == "torch" or (isinstance(call.func, cst.Attribute) and owner not in ("np", "numpy"))


def _converts(ctx: Context, call) -> bool:
    """`t.item()` or `int(t)`."""
    cst = ctx.cst
    func = call.func
    return (isinstance(func, cst.Attribute) and func.attr.value == "item" and not call.args) or (
        isinstance(func, cst.Name) and func.value == "int" and len(call.args) == 1)


def _data_sized(ctx: Context, region):
    """The data-sized construct of a region (a mask read or a DATA_SIZED torch call the
    analysis traced), when its value is returned or bound to names only used as tensors."""
    cst = ctx.cst
    for node in ctx.at(region.line, region.col, (cst.Subscript, cst.Call)):
        if isinstance(node, cst.Call) and not (_call_name(cst, node) in DATA_SIZED and ctx.is_tensor_op(node)):
            continue
        _check_tensor_use(ctx, node)
        return node
    raise OtherForm("capture_dynamic_output_shape_ops is shown safe only for a mask read or a nonzero, unique, "
                    "bincount or repeat_interleave call")


def _check_tensor_use(ctx: Context, node) -> None:
    """Decline unless the value reaches the `return` of a `forward` or a plain assignment through
    tensor operations, indexing and tuples only, and every name it is bound to is read only as
    a tensor."""
    cst = ctx.cst
    current = _through_tensor_ops(ctx, node)
    parent = ctx.parent(current)
    if isinstance(parent, cst.Return):
        _returned_by_forward(ctx, parent, f"the data-sized value `{ctx.code(node)}`")
        return
    if isinstance(parent, cst.Assign) and parent.value is current:
        for target in parent.targets:
            for name in _target_names(ctx, target.target):
                _check_name_uses(ctx, parent, name)
        return
    raise Decline(f"the data-sized value `{ctx.code(node)}` is used in `{ctx.code(parent).strip()[:60]}`, "
                  "where its unbacked size may be guarded on")


def _returned_by_forward(ctx: Context, statement, what: str) -> None:
    """A module's output may have a data-dependent size; another function's callers may read it."""
    function = statement
    while function is not None and not isinstance(function, ctx.cst.FunctionDef):
        function = ctx.parent(function)
    if function is None or function.name.value != "forward":
        raise Decline(f"{what} is returned to callers that may read its size")


def _through_tensor_ops(ctx: Context, node):
    """The outermost expression around `node` reached through tensor methods, indexing, tuples
    and arguments of traced tensor operations, stopping before a read of its size."""
    cst = ctx.cst
    current = node
    while True:
        parent = ctx.parent(current)
        if isinstance(parent, cst.Attribute) and parent.attr.value in SIZE_READS:
            return current
        if isinstance(parent, cst.Arg):
            call = ctx.parent(parent)
            if not (isinstance(call, cst.Call) and ctx.is_tensor_op(call)):
                return current
            current = call
            continue
        if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation)):
            if not ctx.is_tensor_op(parent):
                return current
            current = parent
            continue
        if isinstance(parent, (cst.Attribute, cst.Subscript, cst.SubscriptElement, cst.Index, cst.Element,
                               cst.Tuple, cst.List)) or (isinstance(parent, cst.Call) and parent.func is current):
            current = parent
            continue
        return current


def _target_names(ctx: Context, target) -> list[str]:
    cst = ctx.cst
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)) and all(isinstance(e.value, cst.Name) for e in target.elements):
        return [e.value.value for e in target.elements]
    raise Decline(f"the data-sized value is stored into `{ctx.code(target)}`, which fix cannot follow")


def _check_name_uses(ctx: Context, assign, name: str, depth: int = 0) -> None:
    """Every read of `name` in its scope is a tensor use, as `_through_tensor_ops` follows it,
    ending in a return, a statement of a tensor operation, or a name bound to it whose reads
    are such too (three names deep); the name is bound nowhere else."""
    cst = ctx.cst
    scope = ctx.scopes.get(assign)
    if scope is None or len(scope.assignments[name]) != 1:
        raise Decline(f"`{name}` is assigned more than once, so fix cannot follow its uses")
    for access in scope.accesses[name]:
        if ctx.scopes.get(access.node) is not scope:
            raise Decline(f"`{name}` is used in a nested function or comprehension")
        outer = _through_tensor_ops(ctx, access.node)
        parent = ctx.parent(outer)
        if isinstance(parent, cst.Return):
            _returned_by_forward(ctx, parent, f"`{name}`")
            continue
        if isinstance(parent, cst.Expr) and outer is not access.node:
            continue
        if isinstance(parent, cst.Assign) and parent.value is outer and depth < 3:
            for target in parent.targets:
                for bound in _target_names(ctx, target.target):
                    _check_name_uses(ctx, parent, bound, depth + 1)
            continue
        raise Decline(f"`{name}` is used in `{ctx.code(parent).strip()[:60]}`, where its unbacked size may be "
                      "read or guarded on")
