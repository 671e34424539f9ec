"""Compile roots and their settings: the forward of each module class, each function
torch.compile compiles, and the dynamo settings the code writes for them."""
from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from astroid import nodes

from .parse import decorated, definitions, nodes_of_class
from .resolver import CONFIG_PATCH, Resolver

if TYPE_CHECKING:
    from .compiled import CompileCall

COMPILE_DECORATORS = frozenset({"torch.compile", "torch.compiler.compile"})


@dataclass
class Root:
    """A compile root: a module's forward, or a function compiled with torch.compile."""

    function: nodes.FunctionDef
    cls: nodes.ClassDef | None  # the module class compiled
    owner: nodes.ClassDef | None = None  # the class defining `function`, when inherited
    # Settings the code gives torch.compile for this root: `@torch.compile(fullgraph=True)`.
    settings: dict[str, bool] = field(default_factory=dict)
    # A library's public function (--staticfx-library-roots): its callers' arguments are unknown.
    library: bool = False
    # Compiled by a torch.compile call or decorator of the project (--staticfx-compiled-only keeps these).
    compiled: bool = False
    # The constant keyword arguments the project's compile calls build the compiled module with
    # (`torch.compile(Net(debug=True))`), when they agree: its configuration, not the defaults.
    built_with: dict[str, Any] | None = None

    @property
    def name(self) -> str:
        return f"{self.cls.name}.{self.function.name}" if self.cls else self.function.name


@dataclass
class SkippedRoot:
    """A module class that would be a root, left out because of a decorator we do not know."""

    cls: nodes.ClassDef
    decorated: nodes.ClassDef  # the class carrying the decorator: cls or a class forward comes through
    decorator: nodes.NodeNG

    @property
    def name(self) -> str:
        return f"{self.cls.name}.forward"


def find_roots(resolver: Resolver, skipped: list[SkippedRoot] | None = None,
               library_roots: bool = False, compile_calls: Sequence[CompileCall] = ()) -> list[Root]:
    """The compile roots of the linted file; module classes left out because of an unknown
    decorator are added to `skipped`, when given. With `library_roots`, the file's public
    functions and methods and its `__call__` overrides are roots too. `compile_calls` (of the
    project, or of the file alone) give the settings of classes and functions they compile,
    and make such functions roots."""
    roots = []
    compiled = _compiled_here(resolver, compile_calls)
    for node in definitions(resolver.main.node):
        if isinstance(node, nodes.ClassDef):
            owner = next((c for c in resolver.iter_mro(node) if "forward" in c.locals), None)
            forward = owner.locals["forward"][-1] if owner is not None else None
            # A subclass that only changes attributes (report_stats = False) compiles the
            # inherited forward differently: it is a root too, when that forward is in this file.
            if isinstance(forward, nodes.FunctionDef) and owner.root() is node.root() \
                    and resolver.is_module_class(node):
                opaque = resolver.opaque_decorator(node)
                if opaque is None:
                    calls = compiled.get(node, [])
                    roots.append(Root(forward, node, owner, settings=_agreed(calls, "settings", {}),
                                      compiled=bool(calls), built_with=_agreed(calls, "built_with", None)))
                elif skipped is not None:
                    skipped.append(SkippedRoot(node, *opaque))
        elif node.decorators:
            compiles = [d for d in node.decorators.nodes if resolver.imported_from_torch(decorated(d))
                        and resolver.decorator_qname(d) in COMPILE_DECORATORS]
            if compiles:
                cls = node.parent if isinstance(node.parent, nodes.ClassDef) else None
                roots.append(Root(node, cls, settings=_compile_settings(compiles[0]), compiled=True))
    known = {root.function for root in roots}
    for node, calls in compiled.items():
        if isinstance(node, nodes.FunctionDef) and node not in known:
            known.add(node)
            roots.append(Root(node, None, settings=_agreed(calls, "settings", {}), compiled=True))
    for function, cls, call in _compiled_by_call(resolver):
        if function not in known:
            known.add(function)
            roots.append(Root(function, cls, settings=_compile_settings(call), compiled=True))
    for function, cls in _public_functions(resolver) if library_roots else ():
        if function not in known:
            known.add(function)
            roots.append(Root(function, cls, library=True))
    return roots


def inherited_forward_roots(resolver: Resolver) -> list[Root]:
    """The module classes of the linted file whose forward is inherited from another file's class
    (find_roots leaves them to that file, whose analysis never sees this class's overrides):
    compiling one runs that forward with this class's methods (reach.py runs them for the files
    these reach)."""
    roots = []
    for node in definitions(resolver.main.node):
        if not isinstance(node, nodes.ClassDef) or not resolver.is_module_class(node) \
                or resolver.opaque_decorator(node) is not None:
            continue
        owner = next((c for c in resolver.iter_mro(node) if "forward" in c.locals), None)
        forward = owner.locals["forward"][-1] if owner is not None else None
        if isinstance(forward, nodes.FunctionDef) and owner.root() is not node.root():
            roots.append(Root(forward, node, owner))
    return roots


def _compiled_here(resolver: Resolver, calls: Sequence[CompileCall]) -> dict[nodes.NodeNG, list[CompileCall]]:
    """The top-level classes and functions of the linted file that `calls` compile, each with
    the calls compiling it."""
    compiling: dict[nodes.NodeNG, list[CompileCall]] = {}
    main = resolver.main
    for call in calls:
        defined = main.node.locals.get(call.qname.rsplit(".", 1)[-1], ())
        node = defined[-1] if defined else None
        if not isinstance(node, nodes.ClassDef) and not (isinstance(node, nodes.FunctionDef) and not call.returned):
            continue  # `torch.compile(tiny())` compiles what tiny returns, not tiny
        if call.qname != node.qname():  # named through a re-export (`from pkg import Net`)
            bound = resolver.qualified(call.qname)
            if bound.kind not in ("class", "function") or bound.qname != node.qname() \
                    or bound.module is None or os.path.abspath(bound.module.path) != os.path.abspath(main.path):
                continue
        compiling.setdefault(node, []).append(call)
    return compiling


def _agreed(calls: list[CompileCall], field: str, otherwise: Any) -> Any:
    """What every call of `calls` says of `field` (`settings`, `built_with`), as a dict;
    `otherwise` where they differ or there is none."""
    said = {getattr(call, field) for call in calls}
    return dict(said.pop()) if len(said) == 1 and None not in said else otherwise


def _public_functions(resolver: Resolver) -> Iterator[tuple[nodes.FunctionDef, nodes.ClassDef | None]]:
    """What users of a library may compile: its public functions, the public methods of its
    classes and every `__call__`; not what a decorator may replace or what is compiled away
    (torch.compiler.disable)."""
    scopes: list[tuple[list[nodes.NodeNG], nodes.ClassDef | None]] = [(resolver.main.node.body, None)]
    while scopes:
        body, cls = scopes.pop(0)
        for node in body:
            if isinstance(node, nodes.ClassDef):
                scopes.append((node.body, node))
            elif isinstance(node, nodes.FunctionDef) and (not node.name.startswith("_") or
                                                          (cls is not None and node.name == "__call__")) \
                    and not resolver.is_opaque(node) and not resolver.is_disabled(node):
                yield node, cls


COMPILE_SETTINGS = ("fullgraph",)
# torch._dynamo.config fields a module (or a config.patch) may set, which change where dynamo
# breaks: the switches, and the sets of functions dynamo drops (`ignore_logger_methods` is the
# older name of `ignore_logging_functions`), each by the Options field that mirrors it.
CONFIG_SETTINGS = {"capture_scalar_outputs": "capture_scalar_outputs",
                   "capture_dynamic_output_shape_ops": "capture_dynamic_output_shape_ops"}
CONFIG_FUNCTION_SETS = {"ignore_logger_methods": "ignore_logging_functions",
                        "ignore_logging_functions": "ignore_logging_functions"}


def _compile_settings(call: nodes.NodeNG) -> dict[str, bool]:
    """The settings written in a torch.compile call or decorator (`fullgraph=True`)."""
    keywords = (call.keywords or []) if isinstance(call, nodes.Call) else []
    return {k.arg: k.value.value for k in keywords
            if k.arg in COMPILE_SETTINGS and isinstance(k.value, nodes.Const) and isinstance(k.value.value, bool)}


def config_patch(resolver: Resolver, function: nodes.FunctionDef) -> dict[str, Any] | None:
    """The settings of a `@torch._dynamo.config.patch(...)` decorating `function` (by Options
    field, as `written_setting` reads them), None when there is none. Dynamo cannot enter the
    patch's context manager (GB0142): a call of the function from compiled code breaks, and the
    function compiles as a frame of its own, with the patch on (a patched forward compiles with it)."""
    for decorator in function.decorators.nodes if function.decorators else ():
        if isinstance(decorator, nodes.Call) and resolver.imported_from_torch(decorator.func) \
                and resolver.decorator_qname(decorator) == CONFIG_PATCH:
            settings = {}
            for keyword in decorator.keywords or ():
                written = written_setting(resolver, keyword.arg, keyword.value)
                if written is not None:
                    settings[written[0]] = written[1]
            return settings
    return None


def config_settings(resolver: Resolver) -> dict[str, Any]:
    """The dynamo settings the linted module writes at its top level, by Options field:
    `torch._dynamo.config.capture_scalar_outputs = True`,
    `torch._dynamo.config.ignore_logger_methods = {logger.info}`,
    `torch._dynamo.config.reorderable_logging_functions.add(print)`."""
    settings: dict[str, Any] = {}
    for statement in resolver.main.node.body:
        added = _reorderable_function(resolver, statement)
        if added is not None:
            settings["reorderable_logging_functions"] = (*settings.get("reorderable_logging_functions", ()), added)
        if not isinstance(statement, nodes.Assign):
            continue
        for target in statement.targets:
            if isinstance(target, nodes.AssignAttr) and resolver.imported_from_torch(target.expr) \
                    and resolver.expr_qname(target.expr) == "torch._dynamo.config":
                written = written_setting(resolver, target.attrname, statement.value)
                if written is not None:
                    settings[written[0]] = written[1]
    return settings


def written_setting(resolver: Resolver, name: str | None, value: nodes.NodeNG) -> tuple[str, Any] | None:
    """(Options field, value) of a dynamo setting the code writes, when it is one the options
    mirror and its value is written out: a switch's True or False, a set of functions as the
    qualified names the interpreter gives their calls."""
    if name in CONFIG_SETTINGS and isinstance(value, nodes.Const) and isinstance(value.value, bool):
        return CONFIG_SETTINGS[name], value.value
    if name in CONFIG_FUNCTION_SETS and isinstance(value, (nodes.Set, nodes.List, nodes.Tuple)):
        names = (_logging_function_name(resolver, element) for element in value.elts)
        return CONFIG_FUNCTION_SETS[name], tuple(qname for qname in names if qname is not None)
    return None


def _logging_function_name(resolver: Resolver, expr: nodes.NodeNG) -> str | None:
    """The name the interpreter gives calls of a function listed in ignore_logger_methods: a
    method of a module-level `logger = logging.getLogger(...)` is `logging.Logger.<method>`
    (dynamo then drops it on that logger only; here on every logger, as the option does);
    `logging.info` and `logging.Logger.info` are their own names."""
    from ..tables import LOGGER_FACTORIES  # late: tables imports the values, which import us

    if isinstance(expr, nodes.Attribute):
        receiver = resolver.expr_binding(expr.expr)
        if receiver is not None and receiver.kind == "assign" and isinstance(receiver.node, nodes.Call) \
                and resolver.expr_qname(receiver.node.func) in LOGGER_FACTORIES:
            return f"logging.Logger.{expr.attrname}"
    return resolver.expr_qname(expr)


def _reorderable_function(resolver: Resolver, statement: nodes.NodeNG) -> str | None:
    """`print` for a top-level `torch._dynamo.config.reorderable_logging_functions.add(print)`."""
    call = statement.value if isinstance(statement, nodes.Expr) else None
    func = call.func if isinstance(call, nodes.Call) else None
    if not (isinstance(func, nodes.Attribute) and func.attrname == "add" and len(call.args) == 1
            and isinstance(call.args[0], nodes.Name) and call.args[0].name == "print"
            and isinstance(func.expr, nodes.Attribute) and func.expr.attrname == "reorderable_logging_functions"
            and resolver.imported_from_torch(func.expr.expr)
            and resolver.expr_qname(func.expr.expr) == "torch._dynamo.config"):
        return None
    return "print"


# What the text of a `torch.compile(f)` call holds (with a literal prefix: a fast scan; a
# `recompile(` only costs the walk).
_COMPILE_CALL = re.compile(r"compile\s*\(")


def _torch_compile_calls(resolver: Resolver) -> Iterator[nodes.Call]:
    """The file's calls of torch.compile with something to compile."""
    if resolver.main.source is not None and not _COMPILE_CALL.search(resolver.main.source):
        return  # walking the tree cost 1.1 s over 200 library files, which all say "compil..."
    for call in nodes_of_class(resolver.main.node, nodes.Call):
        func = call.func
        name = func.attrname if isinstance(func, nodes.Attribute) else getattr(func, "name", None)
        if name == "compile" and call.args and resolver.imported_from_torch(func) \
                and resolver.expr_qname(func) in COMPILE_DECORATORS:
            yield call


def _compiled_by_call(resolver: Resolver) -> Iterator[tuple[nodes.FunctionDef, nodes.ClassDef, nodes.Call]]:
    """Methods the file compiles by calling torch.compile on them: `self.f = torch.compile(self.f)`
    on a method of the class (compiled.py reads the calls that name a function or a class)."""
    for call in _torch_compile_calls(resolver):
        target = call.args[0]
        if isinstance(target, nodes.Attribute) and isinstance(target.expr, nodes.Name) \
                and target.expr.name == "self":
            cls = call.frame().parent if isinstance(call.frame(), nodes.FunctionDef) else None
            if isinstance(cls, nodes.ClassDef):
                method = cls.locals.get(target.attrname, ())
                if method and isinstance(method[-1], nodes.FunctionDef):
                    yield method[-1], cls, call
