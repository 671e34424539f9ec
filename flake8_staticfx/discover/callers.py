"""What a compiled function's callers in its own file pass it, where every caller is seen:

    @torch.compile
    def apply(fn, x): ...
    apply(scaled_sum, x)          # fn is scaled_sum: dynamo traces it, and its breaks

A parameter every call fills with the same module-level function, or with int constants, is
that function or an int, not the tensor a compile root's input is assumed to be. A function
named anywhere but as a call's callee (a list, another call's argument, an export) has callers
we do not see: none of its parameters is told by calls then.
"""
from __future__ import annotations

from dataclasses import dataclass

from astroid import nodes

from .parse import nodes_of_class
from .resolver import Resolver
from .roots import COMPILE_DECORATORS


@dataclass(frozen=True)
class Passed:
    """What every call passes to one parameter: one module-level function, or ints (`ints`
    holds their values)."""

    function: nodes.FunctionDef | None = None
    ints: frozenset[int] = frozenset()


def passed_by_callers(resolver: Resolver, function: nodes.FunctionDef) -> dict[str, Passed]:
    """The unannotated parameters of a module-level `function` that all its calls in the file
    fill alike, by name; {} when some use of it is not a call."""
    calls = _calls_of(resolver, function)
    if not calls:
        return {}
    spec = function.args
    positional = [*spec.posonlyargs, *spec.args]
    annotations = [*spec.posonlyargs_annotations, *spec.annotations]
    unannotated = [p.name for p, a in zip(positional, annotations) if a is None]
    unannotated += [p.name for p, a in zip(spec.kwonlyargs, spec.kwonlyargs_annotations) if a is None]
    names = [p.name for p in positional]
    said: dict[str, list[Passed | None]] = {name: [] for name in unannotated}
    for call in calls:
        if any(isinstance(arg, nodes.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords or ()):
            return {}
        given = dict(zip(names, call.args))
        given.update({k.arg: k.value for k in call.keywords or ()})
        for name in said:
            said[name].append(_passed(given[name]) if name in given else None)
    return {name: agreed for name, kinds in said.items() if (agreed := _agreed(kinds)) is not None}


def _calls_of(resolver: Resolver, function: nodes.FunctionDef) -> list[nodes.Call]:
    """The calls of `function` in its file, directly or through a name bound to
    `torch.compile(function)`; [] when it or that name is used otherwise."""
    if not isinstance(function.parent, nodes.Module):
        return []
    calls: list[nodes.Call] = []
    for name in nodes_of_class(function.root(), nodes.Name):
        if not _names(name, function):
            continue
        parent, compiled_into = name.parent, _compiled_into_name(resolver, name)
        if isinstance(parent, nodes.Call) and parent.func is name:
            calls.append(parent)
        elif compiled_into is not None:
            calls.extend(_calls_of_name(compiled_into) or [None])
        else:
            return []
    return [] if None in calls else calls


def _names(name: nodes.Name, function: nodes.FunctionDef) -> bool:
    if name.name != function.name:
        return False
    scope, assigned = name.lookup(name.name)
    return function in assigned


def _compiled_into_name(resolver: Resolver, name: nodes.Name) -> nodes.AssignName | None:
    """`opt = torch.compile(fn)`: the `opt` a use of `fn` is compiled into, else None."""
    call = name.parent
    if not (isinstance(call, nodes.Call) and call.args and call.args[0] is name
            and resolver.expr_qname(call.func) in COMPILE_DECORATORS):
        return None
    statement = call.parent
    if isinstance(statement, nodes.Assign) and len(statement.targets) == 1 \
            and isinstance(statement.targets[0], nodes.AssignName):
        return statement.targets[0]
    return None


def _calls_of_name(bound: nodes.AssignName) -> list[nodes.Call | None]:
    """The calls through the name `bound` binds; None for a use that is not a call."""
    uses: list[nodes.Call | None] = []
    for name in nodes_of_class(bound.scope(), nodes.Name):
        if name.name == bound.name and bound in name.lookup(name.name)[1]:
            call = name.parent
            uses.append(call if isinstance(call, nodes.Call) and call.func is name else None)
    return uses


def _passed(arg: nodes.NodeNG) -> Passed | None:
    """What one argument is, when it is a module-level function or an int constant."""
    if isinstance(arg, nodes.Const) and type(arg.value) is int:
        return Passed(ints=frozenset({arg.value}))
    if isinstance(arg, nodes.Name):
        scope, assigned = arg.lookup(arg.name)
        if isinstance(scope, nodes.Module) and len(assigned) == 1 and isinstance(assigned[0], nodes.FunctionDef):
            return Passed(function=assigned[0])
    return None


def _agreed(kinds: list[Passed | None]) -> Passed | None:
    """One function passed by every call, or ints by every call; else None."""
    if not kinds or None in kinds:
        return None
    functions = {kind.function for kind in kinds}
    if functions != {None}:
        return kinds[0] if len(functions) == 1 else None
    return Passed(ints=frozenset().union(*(kind.ints for kind in kinds)))
