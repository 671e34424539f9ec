"""Rewrite: turn on the dynamo setting that captures a break, where every break it captures in
the file has a form the setting is shown safe for."""
from __future__ import annotations

from ..rules import RULES
from .base import Context, Decline, Edit, OtherForm, Outcome, Rewrite, _call_name, _dotted, numpy_conversion

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
    safe: for capture_scalar_outputs, a tensor used as a slice bound or as the size argument of
    repeat/expand/zeros/new_zeros/topk and their like, `torch._check_tensor_all`, or an
    `.item()`/`int()`/`float()` whose number only flows (through Python arithmetic, sum(),
    containers and names) into those or into tensor arithmetic (_check_number_use); for
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
            if numpy_conversion(ctx, node):
                raise Decline(f"`{ctx.code(node)}` reads a numpy array, which fix does not capture")
            _check_number_use(ctx, node, f"`{ctx.code(node)}`", 0)
            return node
        if isinstance(node, cst.Call) and _dotted(ctx, node.func) == "torch._check_tensor_all":
            return node  # its `.item()` inside torch feeds only the runtime assert
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
    """`t.item()`, `int(t)` or `float(t)`."""
    cst = ctx.cst
    func = call.func
    return (isinstance(func, cst.Attribute) and func.attr.value == "item" and not call.args) or (
        isinstance(func, cst.Name) and func.value in ("int", "float") and len(call.args) == 1)


# Builtins that take captured numbers (or containers of them) without guarding on their values
# (dynamo 2.13 computes max/min of symbolic numbers as torch.sym_max/sym_min).
NUMBER_FOLDING = frozenset({"int", "float", "sum", "max", "min", "abs", "list", "tuple"})


def _check_number_use(ctx: Context, node, what: str, depth: int) -> None:
    """Decline unless the captured number (an unbacked symbol under capture_scalar_outputs) only
    flows, through Python arithmetic, int()/float()/sum(), containers and names, into tensor
    arithmetic, a slice bound, the size of a SIZE_TAKING call, `len()` of its
    container, or the return of a forward: nothing compares it, branches on it, formats it or
    hands it to another function, where dynamo would need its value."""
    cst = ctx.cst
    current = node
    while True:
        parent = ctx.parent(current)
        if isinstance(parent, cst.BinaryOperation) or (
                isinstance(parent, cst.UnaryOperation) and not isinstance(parent.operator, cst.Not)):
            if ctx.is_tensor_op(parent):
                return
            current = parent
            continue
        if isinstance(parent, (cst.Element, cst.List, cst.Tuple, cst.Dict)) or (
                isinstance(parent, (cst.ListComp, cst.GeneratorExp)) and current is parent.elt) or (
                isinstance(parent, (cst.DictElement, cst.DictComp)) and current is parent.value):  # a key is hashed
            current = parent
            continue
        if isinstance(parent, cst.Subscript) and parent.value is current:
            current = parent  # an item of the container
            continue
        if isinstance(parent, cst.Slice):  # a slice bound (an index `t[n]` selects: unbacked, it raises)
            return
        if isinstance(parent, cst.Arg):
            call = ctx.parent(parent)
            name = call.func.value if isinstance(call.func, cst.Name) else None
            if _size_taking(ctx, call) or name == "len":
                return
            if name in NUMBER_FOLDING:
                current = call
                continue
            if isinstance(call.func, cst.Attribute) and call.func.attr.value == "append" and \
                    isinstance(call.func.value, cst.Name) and isinstance(ctx.parent(call), cst.Expr) and depth < 3:
                _check_number_names(ctx, ctx.parent(call), call.func.value.value, depth)
                return
        if isinstance(parent, cst.Return):
            _check_returned(ctx, parent, what, depth, follow=_check_number_use)
            return
        if isinstance(parent, cst.Assign) and parent.value is current and depth < 3:
            for target in parent.targets:
                target = target.target
                while isinstance(target, cst.Subscript):  # stats[name] = n: an item of `stats`
                    target = target.value
                for name in _target_names(ctx, target):
                    _check_number_names(ctx, parent, name, depth)
            return
        raise Decline(f"{what} is used in `{ctx.code(parent).strip()[:60]}`, where dynamo would need its value")


def _check_number_names(ctx: Context, statement, name: str, depth: int) -> None:
    """Each read of `name` after `statement` follows `_check_number_use`; a name bound in a
    loop or again later cannot be followed."""
    for read in _reads_after(ctx, statement, name):
        _check_number_use(ctx, read, f"`{name}`", depth + 1)


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


def _check_tensor_use(ctx: Context, node, depth: int = 0) -> None:
    """Decline unless the value reaches a `return` (of a `forward`, or of a function every call
    of which in the file uses it so) or a plain assignment through tensor operations, indexing
    and tuples only, and every name it is bound to is read only as a tensor."""
    cst = ctx.cst
    current = _through_tensor_ops(ctx, node)
    parent = ctx.parent(current)
    if isinstance(parent, cst.Return):
        _check_returned(ctx, parent, f"the data-sized value `{ctx.code(node)}`", depth)
        return
    if isinstance(parent, cst.Assign) and parent.value is current:
        for target in parent.targets:
            for name in _target_names(ctx, target.target):
                _check_name_uses(ctx, parent, name, depth)
        return
    raise Decline(f"the data-sized value `{ctx.code(node)}` is used in `{ctx.code(parent).strip()[:60]}`, "
                  "where its unbacked size may be guarded on")


def _check_returned(ctx: Context, statement, what: str, depth: int, follow=None) -> None:
    """A module's output may have a data-dependent size; another function's value must be used
    as a tensor by each of its calls in the file (`f(...)`, `self.f(...)`), and it must have one."""
    cst = ctx.cst
    function = statement
    while function is not None and not isinstance(function, cst.FunctionDef):
        function = ctx.parent(function)
    if function is not None and function.name.value == "forward":
        return
    name = function.name.value if function is not None else None
    calls = [node for node in ctx.positions if isinstance(node, cst.Call) and name is not None and (
        isinstance(node.func, cst.Name) and node.func.value == name
        or isinstance(node.func, cst.Attribute) and node.func.attr.value == name)]
    if not calls or depth >= 3:
        raise Decline(f"{what} is returned to callers that may read its size")
    for call in calls:
        if follow is None:
            _check_tensor_use(ctx, call, depth + 1)
        else:
            follow(ctx, call, what, depth + 1)


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
        if isinstance(parent, cst.Subscript) and parent.value is not current and not ctx.is_tensor_op(parent):
            return current  # an index into something that is not a tensor needs a Python int
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
    """Every read of `name` after `assign` is a tensor use, as `_through_tensor_ops` follows
    it, ending in a return, a statement of a tensor operation, or a name bound to it whose reads
    are such too (three names deep)."""
    cst = ctx.cst
    for read in _reads_after(ctx, assign, name):
        outer = _through_tensor_ops(ctx, read)
        parent = ctx.parent(outer)
        if isinstance(parent, cst.Return):
            _check_returned(ctx, parent, f"`{name}`", depth)
            continue
        if isinstance(parent, cst.Expr) and outer is not read:
            continue
        if isinstance(parent, cst.Assign) and parent.value is outer and depth < 3:
            for target in parent.targets:
                for bound in _target_names(ctx, target.target):
                    _check_name_uses(ctx, parent, bound, depth + 1)
            continue
        raise Decline(f"`{name}` is used in `{ctx.code(parent).strip()[:60]}`, where its unbacked size may be "
                      "read or guarded on")


def _reads_after(ctx: Context, statement, name: str) -> list:
    """The reads of `name` that see the value `statement` binds (or fills, for a container): those
    after it in its function. A name bound again after it or inside a loop cannot be followed
    (libcst's scopes do not say which binding a read sees), nor one read in a nested scope."""
    scope = ctx.scopes.get(statement)
    if scope is None:
        raise Decline(f"fix cannot follow the uses of `{name}`")
    bound_at = ctx.positions[statement].end
    after = (bound_at.line, bound_at.column)
    if len(scope.assignments[name]) != 1 and (_in_loop(ctx, statement) or any(
            (ctx.positions[a.node].start.line, ctx.positions[a.node].start.column) > after
            for a in scope.assignments[name] if a.node in ctx.positions)):
        raise Decline(f"`{name}` is assigned more than once, so fix cannot follow its uses")
    reads = []
    for access in scope.accesses[name]:
        if ctx.scopes.get(access.node) is not scope:
            raise Decline(f"`{name}` is used in a nested function or comprehension")
        where = ctx.positions[access.node].start
        if (where.line, where.column) >= after:
            reads.append(access.node)  # not an earlier value of the name (a parameter rebound)
    return reads


def _in_loop(ctx: Context, node) -> bool:
    cst = ctx.cst
    while node is not None and not isinstance(node, cst.FunctionDef):
        if isinstance(node, (cst.For, cst.While)):
            return True
        node = ctx.parent(node)
    return False
