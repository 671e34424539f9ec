"""What a compiled function's callers in its own file pass it, where every caller is seen:

    @torch.compile
    def apply(fn, x): ...
    apply(scaled_sum, x)          # fn is scaled_sum: dynamo traces it, and its breaks

A parameter every call fills with the same module-level function, or with int constants, is
that function or an int, not the tensor a compile root's input is assumed to be; one every call
fills with a zip, an enumerate or a view of a dict the caller builds (`d.items()`) is such an
iterator, which dynamo cannot step. A function
named anywhere but as a call's callee (a list, another call's argument, an export) has callers
we do not see: none of its parameters is told by calls then, but for an iterator a call passes
(dynamo breaks on that call whatever the others pass).
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from astroid import nodes

from .compiled import CompileIndex
from .parse import nodes_of_class
from .projects import SourceModule, project_root
from .resolver import Resolver
from .roots import COMPILE_DECORATORS


@dataclass(frozen=True)
class Passed:
    """What every call passes to one parameter: one module-level function, ints (`ints`
    holds their values), or an iterator (`iterator` names its kind: "zip", "dict_items")."""

    function: nodes.FunctionDef | None = None
    ints: frozenset[int] = frozenset()
    iterator: str | None = None


def passed_by_callers(resolver: Resolver, function: nodes.FunctionDef,
                      other_files: Sequence[SourceModule] = ()) -> dict[str, Passed]:
    """The unannotated parameters of a module-level `function` that its calls in the file (and in
    `other_files`, which import it by name) fill alike, by name. A use that is not a call, or a
    call spreading its arguments, is a caller we do not see: only an iterator some call passes
    is still told then (it breaks on that call)."""
    uses = _uses_of(resolver, function) + [use for module in other_files
                                           for use in _uses_in(resolver, module, function)]
    return _told(function, uses)


def forward_passed_by_callers(resolver: Resolver, cls: nodes.ClassDef,
                              forward: nodes.FunctionDef) -> dict[str, Passed]:
    """The iterators the calls of a compiled instance of module class `cls` pass its forward, in
    the class's file (`net = torch.compile(Net())`, then `net(zip(a, b))`): a forward's other
    inputs keep their typing."""
    uses: list[nodes.Call | None] = []
    for name in nodes_of_class(cls.root(), nodes.Name):
        made = name.parent
        if not (_names(name, cls) and isinstance(made, nodes.Call) and made.func is name):
            continue
        compiling = made.parent
        if isinstance(compiling, nodes.Call) and compiling.args and compiling.args[0] is made \
                and resolver.expr_qname(compiling.func) in COMPILE_DECORATORS:
            bound = _assigned_name(compiling)
            uses.extend((_calls_of_name(bound) or [None]) if bound is not None else [None])
    return {name: passed for name, passed in _told(forward, uses, bound_method=True).items()
            if passed.iterator is not None}


def _told(function: nodes.FunctionDef, uses: list[nodes.Call | None],
          bound_method: bool = False) -> dict[str, Passed]:
    """What `uses` tell of the unannotated parameters of `function` (after `self` for a
    `bound_method`), by name."""
    if not any(uses):
        return {}
    spec = function.args
    positional = [*spec.posonlyargs, *spec.args]
    annotations = [*spec.posonlyargs_annotations, *spec.annotations]
    if bound_method:
        positional, annotations = positional[1:], annotations[1:]
    unannotated = [p.name for p, a in zip(positional, annotations) if a is None]
    unannotated += [p.name for p, a in zip(spec.kwonlyargs, spec.kwonlyargs_annotations) if a is None]
    names = [p.name for p in positional]
    said: dict[str, list[Passed | None]] = {name: [] for name in unannotated}
    for call in uses:
        if call is None or any(isinstance(arg, nodes.Starred) for arg in call.args) \
                or any(k.arg is None for k in call.keywords or ()):
            given = {}
        else:
            given = dict(zip(names, call.args))
            given.update({k.arg: k.value for k in call.keywords or ()})
        for name in said:
            said[name].append(_passed(given[name]) if name in given else None)
    return {name: agreed for name, kinds in said.items() if (agreed := _agreed(kinds)) is not None}


MAX_CALLING_FILES = 6


def calling_files(resolver: Resolver, index: CompileIndex, function: nodes.FunctionDef) -> list[SourceModule]:
    """The first few other files of the project importing the module of `function` (the compile
    index lists them): their calls of it count too."""
    return list(importing_files(resolver, index, resolver.source_of(function), MAX_CALLING_FILES))


def importing_files(resolver: Resolver, index: CompileIndex, module: SourceModule,
                    limit: int) -> Iterator[SourceModule]:
    """The first `limit` other files of the project importing `module` (the compile index lists
    them), each loaded through `resolver` as it is asked for; a file it cannot load is left out."""
    for path in index.importers(module.modname, module.path)[:limit]:
        loaded = resolver.load(project_root(path)[1])
        if loaded is not None:
            yield loaded


def _uses_of(resolver: Resolver, function: nodes.FunctionDef) -> list[nodes.Call | None]:
    """The calls of `function` in its file, directly or through a name bound to
    `torch.compile(function)`, with None for each other use of it or of that name."""
    if not isinstance(function.parent, nodes.Module):
        return []
    return [use for name in nodes_of_class(function.root(), nodes.Name) if _names(name, function)
            for use in _use(resolver, name)]


def _uses_in(resolver: Resolver, module: SourceModule, function: nodes.FunctionDef) -> list[nodes.Call | None]:
    """The uses of `function` in another file, `module`, through the names its imports bind to it."""
    origin = resolver.source_of(function).path
    bound = set()
    for local, statements in module.node.locals.items():
        if any(isinstance(s, nodes.ImportFrom) and any(imported == function.name for imported, _ in s.names)
               for s in statements):
            binding = resolver.global_binding(module, local)
            if binding is not None and binding.kind == "function" and binding.module is not None \
                    and binding.module.path == origin and binding.node.lineno == function.lineno:
                bound.add(local)
    return [use for name in nodes_of_class(module.node, nodes.Name)
            if name.name in bound and name.lookup(name.name)[0] is module.node for use in _use(resolver, name)]


def _use(resolver: Resolver, name: nodes.Name) -> list[nodes.Call | None]:
    """The call a name of the function makes, or those of the name it is compiled into; None
    for a use that is not a call."""
    parent, compiled_into = name.parent, _compiled_into_name(resolver, name)
    if isinstance(parent, nodes.Call) and parent.func is name:
        return [parent]
    if compiled_into is not None:
        return _calls_of_name(compiled_into) or [None]
    return [None]


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
    return _assigned_name(call)


def _assigned_name(call: nodes.Call) -> nodes.AssignName | None:
    """`opt = <call>`: the name the call's result is bound to, else None."""
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
    """What one argument is, when it is a module-level function, an int constant or an iterator."""
    if isinstance(arg, nodes.Const) and type(arg.value) is int:
        return Passed(ints=frozenset({arg.value}))
    iterator = _iterator_kind(arg)
    if iterator is not None:
        return Passed(iterator=iterator)
    if isinstance(arg, nodes.Name):
        scope, assigned = arg.lookup(arg.name)
        if isinstance(scope, nodes.Module) and len(assigned) == 1 and isinstance(assigned[0], nodes.FunctionDef):
            return Passed(function=assigned[0])
    return None


ITERATOR_BUILTINS = ("zip", "enumerate")
DICT_VIEWS = ("items", "keys", "values")


def _iterator_kind(arg: nodes.NodeNG) -> str | None:
    """The kind of iterator `arg` makes: a call of the builtin zip or enumerate, or a view
    ("dict_items", "dict_keys", "dict_values") of a dict the calling code builds (a display, a
    comprehension, `dict(...)`, or a name bound only to one); None for anything else (an
    object's own `items()` may return a list)."""
    if not isinstance(arg, nodes.Call):
        return None
    if isinstance(arg.func, nodes.Name) and arg.func.name in ITERATOR_BUILTINS and _builtin(arg.func):
        return arg.func.name
    if isinstance(arg.func, nodes.Attribute) and arg.func.attrname in DICT_VIEWS and not arg.args \
            and _builds_dict(arg.func.expr):
        return f"dict_{arg.func.attrname}"
    return None


def _builds_dict(expr: nodes.NodeNG) -> bool:
    if isinstance(expr, (nodes.Dict, nodes.DictComp)):
        return True
    if isinstance(expr, nodes.Call) and isinstance(expr.func, nodes.Name):
        return expr.func.name == "dict" and _builtin(expr.func)
    if isinstance(expr, nodes.Name):
        _, assigned = expr.lookup(expr.name)
        return bool(assigned) and all(
            isinstance(target, nodes.AssignName) and isinstance(target.parent, nodes.Assign)
            and target.parent.targets == [target] and _builds_dict(target.parent.value)
            for target in assigned)
    return False


def _builtin(name: nodes.Name) -> bool:
    """Does `name` mean the builtin of that name: bound in none of the scopes around it?"""
    scope = name.scope()
    while True:
        if name.name in scope.locals:
            return False
        if scope.parent is None:
            return True
        scope = scope.parent.scope()


def _agreed(kinds: list[Passed | None]) -> Passed | None:
    """An iterator when some call passes one (dynamo cannot step it on the calls that do: of
    one kind, else "iterator"); else one function passed by every call, or ints by every call;
    else None."""
    iterators = {kind.iterator for kind in kinds if kind is not None and kind.iterator is not None}
    if iterators:
        return Passed(iterator=iterators.pop() if len(iterators) == 1 else "iterator")
    if not kinds or None in kinds:
        return None
    functions = {kind.function for kind in kinds}
    if functions != {None}:
        return kinds[0] if len(functions) == 1 else None
    return Passed(ints=frozenset().union(*(kind.ints for kind in kinds)))
