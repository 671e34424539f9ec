"""Rewrite: `.item()` / `float()` whose value only feeds tensor arithmetic keeps the 0-d tensor."""
from __future__ import annotations

from .base import Context, Decline, Edit, Outcome, Rewrite, _zero_dim, side_effect


class KeepZeroDim(Rewrite):
    """`t.item()` / `float(t)` whose value is only used in tensor arithmetic or comparisons
    becomes `t.detach()`: the 0-d tensor takes the Python number's place.

    Dynamo 2.13 breaks on `.item()` and `float()` of a tensor (GB0124) unless
    capture_scalar_outputs is set; arithmetic between a tensor and a 0-d tensor traces without a
    break (measured). `.detach()` keeps the number out of autograd as `.item()` did, and a 0-d
    tensor takes part in type promotion like a Python number (it does not change the other
    operand's dtype within a category), so each tensor result has the same values. A use counts
    only where the analysis traced a tensor operation at exactly the enclosing expression's span
    (through +, -, *, / and comparisons with numbers); any other use (an `if`, a Python call such
    as `max()` or `range()`, an f-string, a return, a list, another name) is declined. A value
    that is not visibly 0-d (a full reduction) is reshaped to `()` so that it broadcasts like a
    number. `int()` and `bool()` are declined: they change the value (truncation, truth).
    """

    name = "keep-0d-tensor"
    codes = ("SFX102",)

    def plan(self, ctx: Context, region) -> Edit:
        cst = ctx.cst
        for call in ctx.at(region.line, region.col, cst.Call):
            func = call.func
            if isinstance(func, cst.Attribute) and func.attr.value == "item" and not call.args:
                tensor = func.value
                break
            if isinstance(func, cst.Name) and func.value == "float" and len(call.args) == 1:
                tensor = call.args[0].value
                break
            if isinstance(func, cst.Name) and func.value in ("int", "bool"):
                raise Decline(f"`{func.value}()` changes the value (truncation, truth), so the 0-d tensor "
                              "cannot stand in for it")
        else:
            raise Decline("the conversion is not written here (it is reached through a call or an "
                          "implicit conversion)")
        if side_effect(ctx, tensor):
            raise Decline(f"the converted expression has a side effect (`{side_effect(ctx, tensor)}`)")
        statement = ctx.parent(call)
        if isinstance(statement, cst.Assert) and statement.test is call:
            return self._assert(ctx, region, call, tensor)
        self._check_uses(ctx, call)
        base = tensor
        while isinstance(base, cst.Subscript):  # x[0] is a view of x
            base = base.value
        if isinstance(base, (cst.Name, cst.Attribute)) and _mutated_in_place(ctx, base):
            raise Decline(f"`{ctx.code(base)}` is changed in place in this file, and the 0-d tensor (which shares "
                          "its storage) would see the change where the number did not")
        replacement = f"{ctx.code(tensor)}.detach()"
        if isinstance(tensor, (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison)) and not tensor.lpar:
            replacement = f"({ctx.code(tensor)}).detach()"
        if not _zero_dim(ctx, tensor):
            replacement += ".reshape(())"
        new = cst.parse_expression(replacement).with_changes(lpar=call.lpar, rpar=call.rpar)
        return Edit(call, new, Outcome(ctx.path, region.code, region.line, region.col, self.name,
                                       summary=f"`{ctx.code(call)}` kept as the 0-d tensor `{replacement}`"))

    def _assert(self, ctx: Context, region, call, tensor) -> Edit:
        """`assert t.item(), msg` becomes `assert t, msg`: the truth of a single-element tensor is
        the truth of its number (both raise on more elements), and dynamo 2.13 traces an assert
        on a tensor into the graph (measured: tests/cases/cfg_assert_forms.py)."""
        new = tensor.with_changes(lpar=call.lpar, rpar=call.rpar) if hasattr(tensor, "lpar") else tensor
        return Edit(call, new, Outcome(ctx.path, region.code, region.line, region.col, self.name,
                                       summary=f"`assert {ctx.code(call)}` now asserts the tensor"))

    def _check_uses(self, ctx: Context, call) -> None:
        self._check_value(ctx, call, f"`{ctx.code(call)}`", 0)

    def _check_value(self, ctx: Context, node, what: str, depth: int) -> None:
        """Every path from `node` up must reach a traced tensor operation through arithmetic and
        comparisons, or a plain `name = ...` whose every use does (followed three names deep)."""
        cst = ctx.cst
        current = node
        while True:
            parent = ctx.parent(current)
            if isinstance(parent, cst.ComparisonTarget):
                parent = ctx.parent(parent)
            if isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation)) or (
                    isinstance(parent, cst.Comparison) and len(parent.comparisons) == 1):
                if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, cst.Not):
                    raise Decline(f"{what} is negated with `not`, which needs a Python truth value")
                if ctx.is_tensor_op(parent):
                    return
                current = parent
                continue
            if isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(
                    parent.targets[0].target, cst.Name) and parent.value is current and depth < 3:
                self._check_name(ctx, parent, parent.targets[0].target.value, depth)
                return
            raise Decline(f"{what} is {_describe_use(ctx, parent, current)}, not only tensor arithmetic, so "
                          "it must stay a Python number")

    def _check_name(self, ctx: Context, assign, name: str, depth: int) -> None:
        scope = ctx.scopes.get(assign)
        if scope is None or len(scope.assignments[name]) != 1:
            raise Decline(f"`{name}` is assigned more than once, so fix cannot follow its uses")
        for child_scope in _child_scopes(ctx, scope):
            if name in child_scope.accesses:
                raise Decline(f"`{name}` is used in a nested function or lambda")
        for access in scope.accesses[name]:
            if ctx.scopes.get(access.node) is not scope:
                raise Decline(f"`{name}` is used in a nested function or lambda")
            self._check_value(ctx, access.node, f"`{name}`", depth + 1)


def _mutated_in_place(ctx: Context, node) -> bool:
    """Is the attribute or name written to in place anywhere in the file (`.mul_(...)`,
    `[...] =`, `+=`, `.data =`, `.copy_`)? Conservative: by its last name, in any class."""
    import re

    last = node.attr.value if isinstance(node, ctx.cst.Attribute) else node.value
    pattern = re.compile(rf"\b{re.escape(last)}(\.data)?(\[[^\]]*\])?\s*(\.\w+_\(|[-+*/@%]=|=(?!=))")
    source = ctx.module.code
    for match in pattern.finditer(source):
        if match.group(3).startswith("=") and not (match.group(1) or match.group(2)):
            continue  # `self.decay = ...` binds a new object; the old tensor is unchanged
        return True
    return False


def _child_scopes(ctx: Context, scope) -> list:
    return [s for s in set(ctx.scopes.values()) if s is not None and getattr(s, "parent", None) is scope]


def _describe_use(ctx: Context, parent, node) -> str:
    cst = ctx.cst
    if isinstance(parent, cst.If) or isinstance(parent, cst.While):
        return "tested by an `if`/`while`"
    if isinstance(parent, cst.Arg):
        call = ctx.parent(parent)
        return f"passed to `{ctx.code(call.func)}()`" if isinstance(call, cst.Call) else "passed as an argument"
    if isinstance(parent, (cst.FormattedStringExpression,)):
        return "formatted into a string"
    if isinstance(parent, cst.Return):
        return "returned"
    if isinstance(parent, (cst.Element, cst.List, cst.Tuple, cst.Dict, cst.DictElement)):
        return "put in a container"
    if isinstance(parent, cst.Assign):
        return "assigned to another name"
    if isinstance(parent, (cst.BinaryOperation, cst.Comparison, cst.UnaryOperation)):
        return f"used in `{ctx.code(parent)}`, which is not traced as a tensor operation"
    return f"used in `{ctx.code(parent).strip()[:60]}`"
