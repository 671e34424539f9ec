"""Rewrite: `.item()`, `float()` or a math function whose value only feeds tensor arithmetic keeps the 0-d tensor."""
from __future__ import annotations

from .base import (
    Context, Decline, Edit, OtherForm, Outcome, Rewrite, _dotted, _walk, _zero_dim, numpy_conversion, side_effect,
)


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
    Around the number, `max(n, c)` / `min(n, c)` with a number `c` become `.clamp(min=c)` /
    `.clamp(max=c)` and `math.exp(n)` and its like the torch function (MathOfTensor), and the
    uses of their result are checked instead; a property's returned value is followed into its
    reads when only its own class reads it in the file. `assert t.item(), msg` becomes
    `assert t, msg` (the truth of a single-element tensor is its number's).
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
        if numpy_conversion(ctx, call):
            raise Decline(f"`{ctx.code(call)}` reads a numpy array, not a tensor, so no 0-d tensor can stand in "
                          "for the number")
        if side_effect(ctx, tensor):
            raise Decline(f"the converted expression has a side effect (`{side_effect(ctx, tensor)}`)")
        statement = ctx.parent(call)
        if isinstance(statement, cst.Assert) and statement.test is call:
            return self._assert(ctx, region, call, tensor)
        return self._replace(ctx, region, call, _detached(ctx, tensor))

    def _replace(self, ctx: Context, region, number, replacement: str) -> Edit:
        """Replace the Python number `number` (now `replacement`, a 0-d tensor) and the `max`,
        `min` and `math` calls around it, when the result only feeds tensor arithmetic."""
        cst = ctx.cst
        while True:
            arg = ctx.parent(number)
            call = ctx.parent(arg) if isinstance(arg, cst.Arg) else None
            widened = _around(ctx, call, number, replacement) if isinstance(call, cst.Call) else None
            if widened is None:
                break
            number, replacement = call, widened
        self._check_uses(ctx, number)
        new = cst.parse_expression(replacement).with_changes(lpar=number.lpar, rpar=number.rpar)
        return Edit(number, new, Outcome(ctx.path, region.code, region.line, region.col, self.name,
                                         summary=f"`{ctx.code(number)}` kept as the 0-d tensor `{replacement}`"))

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
            reads = _property_reads(ctx, parent) if isinstance(parent, cst.Return) and depth < 3 else None
            if reads:
                for read in reads:
                    self._check_value(ctx, read, f"`{ctx.code(read)}`", depth + 1)
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


class MathOfTensor(KeepZeroDim):
    """`math.exp(<tensor>)` (and the other one-argument math functions of MATH_FUNCTIONS) whose
    value only feeds tensor arithmetic becomes `torch.exp(<tensor>.detach())`, a 0-d tensor, as
    `.item()` does in KeepZeroDim; `min(t, c)` / `max(t, c)` of a tensor and a number inside it
    become `t.clamp(max=c)` / `t.clamp(min=c)`, which give the same value (the first argument
    on a tie, NaN kept). Dynamo 2.13 breaks on math functions of a tensor (GB0033: the tensor's
    value is needed in Python); the torch functions trace."""

    name = "keep-0d-tensor"
    codes = ("SFX104",)

    def plan(self, ctx: Context, region) -> Edit:
        cst = ctx.cst
        calls = [c for c in ctx.at(region.line, region.col, cst.Call)
                 if _dotted(ctx, c.func) in {f"math.{name}" for name in MATH_FUNCTIONS} and len(c.args) == 1]
        if not calls:
            raise OtherForm("the construct is not a one-argument math function of a tensor")
        call = calls[0]
        tensor = _as_tensor(ctx, call.args[0].value)
        return self._replace(ctx, region, call, f"torch.{call.func.attr.value}({tensor})")


# Functions of `math` with a torch function of the same name and value.
MATH_FUNCTIONS = frozenset({"exp", "log", "sqrt", "log2", "log10", "log1p", "expm1", "sin", "cos", "tan",
                            "tanh", "atan", "erf"})


def _detached(ctx: Context, tensor) -> str:
    """`tensor.detach()` (reshaped to `()` where it is not visibly 0-d): the tensor a Python
    number was read from, kept out of autograd as the number was; Decline where the tensor is
    changed in place in this file."""
    cst = ctx.cst
    if side_effect(ctx, tensor):
        raise Decline(f"the converted expression has a side effect (`{side_effect(ctx, tensor)}`)")
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
    return replacement


def _as_tensor(ctx: Context, expr) -> str:
    """The 0-d tensor form of a math function's argument: a traced tensor detached, or a
    `min`/`max` of one and a number as a clamp; Decline otherwise."""
    cst = ctx.cst
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value in ("min", "max") \
            and len(expr.args) == 2 and not any(a.keyword or a.star for a in expr.args):
        first, second = (a.value for a in expr.args)
        if _is_number(ctx, second):
            return f"{_as_tensor(ctx, first)}.clamp({'max' if expr.func.value == 'min' else 'min'}={ctx.code(second)})"
        raise Decline(f"`{ctx.code(expr)}` is not a min/max of a tensor and a number")
    if isinstance(expr, cst.Attribute) and (_dotted(ctx, expr) or "").startswith("self.") \
            and _dotted(ctx, expr)[len("self."):] in ctx.tensor_attributes or ctx.is_tensor_op(expr):
        return _detached(ctx, expr)
    raise Decline(f"fix cannot show that `{ctx.code(expr)}` is a tensor")


def _around(ctx: Context, call, number, replacement: str) -> str | None:
    """The tensor form of the `max(number, c)` / `min(number, c)` / `math.f(number)` call
    around a Python number that is now `replacement`, or None where the call is another."""
    cst = ctx.cst
    args = call.args
    if any(a.keyword or a.star for a in args):
        return None
    if isinstance(call.func, cst.Name) and call.func.value in ("min", "max") and len(args) == 2 \
            and args[0].value is number and _is_number(ctx, args[1].value):
        return f"{replacement}.clamp({'max' if call.func.value == 'min' else 'min'}={ctx.code(args[1].value)})"
    dotted = _dotted(ctx, call.func) or ""
    if dotted.startswith("math.") and dotted[len("math."):] in MATH_FUNCTIONS and len(args) == 1:
        return f"torch.{dotted[len('math.'):]}({replacement})"
    return None


def _is_number(ctx: Context, expr) -> bool:
    """A number literal (signed), or a `self.<attr>` the analysis read as a number where it is
    compared or computed with a tensor (number_attribute) or nowhere fetched as a tensor."""
    cst = ctx.cst
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        expr = expr.expression
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True
    dotted = _dotted(ctx, expr) if isinstance(expr, cst.Attribute) else None
    return dotted is not None and dotted.startswith("self.") and _assigned_a_number(ctx, dotted)


def _assigned_a_number(ctx: Context, dotted: str) -> bool:
    """Is every `self.<attr> = ...` of the file a number literal or `math.<f>(literals)`?"""
    cst = ctx.cst
    values = [sub.value for sub in _walk(cst, ctx.module) if isinstance(sub, cst.Assign)
              and any(_dotted(ctx, t.target) == dotted for t in sub.targets)]
    if not values:
        return False
    for value in values:
        if isinstance(value, cst.UnaryOperation):
            value = value.expression
        if isinstance(value, (cst.Integer, cst.Float)):
            continue
        if isinstance(value, cst.Call) and (_dotted(ctx, value.func) or "").startswith("math.") and all(
                isinstance(a.value, (cst.Integer, cst.Float)) for a in value.args):
            continue
        if isinstance(value, cst.Name):  # self.min_temperature = min_temperature (an __init__ argument)
            default = _parameter_default(ctx, value)
            if isinstance(default, (cst.Integer, cst.Float)):
                continue
        return False
    return True


def _parameter_default(ctx: Context, name):
    """The default of the parameter a name reads, where it reads a parameter, else None."""
    from libcst.metadata import FunctionScope

    scope = ctx.scopes.get(name)
    if not isinstance(scope, FunctionScope):
        return None
    assignments = list(scope.assignments[name.value])
    if len(assignments) != 1 or not isinstance(assignments[0].node, ctx.cst.Param):
        return None
    return assignments[0].node.default


def _property_reads(ctx: Context, returned) -> list:
    """The `self.<name>` reads of the property whose value this `return` gives, where the
    property's class is the only place in the file that reads `.<name>`; else []."""
    cst = ctx.cst
    function = ctx.parent(returned)
    while function is not None and not isinstance(function, cst.FunctionDef):
        function = ctx.parent(function)
    owner = ctx.parent(ctx.parent(function)) if function is not None else None
    if not isinstance(owner, cst.ClassDef) or not any(
            _dotted(ctx, d.decorator) == "property" for d in function.decorators):
        return []
    name = function.name.value
    reads = [sub for sub in _walk(cst, ctx.module) if isinstance(sub, cst.Attribute) and sub.attr.value == name]
    inside = {id(sub) for sub in _walk(cst, owner)}
    if any(id(read) not in inside or _dotted(ctx, read) != f"self.{name}" for read in reads):
        return []
    return reads


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
