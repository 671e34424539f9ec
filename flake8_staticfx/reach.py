"""Breaks in the linted file that only the compile roots of other files of its project reach.

    # utils.py                                  # model.py
    def _gather_positive(x, idx):               from .utils import _gather_positive
        return x[idx > 0]                       class Net(nn.Module):
                                                    def forward(self, x):
                                                        return _gather_positive(x, self.idx)

Dynamo reports the break at its innermost frame, utils.py's line. No root of utils.py reaches
the helper (a private function, an `__init__`, a utility module without forwards), so linting
utils.py alone finds nothing, and the analysis of model.py reports the break at its call. Here
the roots of the files importing the linted one (the compile index read them) run as their own
file's analysis runs them, with the arguments their code passes, and a break they reach in the
linted file is reported at its innermost line there. Only the breaks dynamo reports now are
taken (not the to-do list after an earlier break), and a root that could not be followed to its
end (budget, an error) adds nothing. Only roots whose function (or class) names what the linted
file defines are run: a forward reaching it through a third file is left out, which keeps the
cost of linting a module imported by many files to the few roots that call into it.
"""
from __future__ import annotations

from dataclasses import replace

from astroid import nodes

from .annotate import annotate
from .config import Options
from .discover.callers import importing_files
from .discover.compiled import CompileIndex
from .discover.parse import nodes_of_class
from .discover.projects import SourceModule
from .discover.resolver import Resolver
from .discover.roots import Root, config_settings, find_roots, inherited_forward_roots
from .interpret.init_interpreter import init_attributes
from .interpret.interpreter import FileState, Interpreter
from .ir import Graph, GraphBreakRegion

# The importing files whose roots are run for one linted file, in path order: a helper module
# many files import is reached from its first few, which bounds the cost of linting it.
MAX_IMPORTERS = 6


def reached_breaks(resolver: Resolver, index: CompileIndex, options: Options,
                   state: FileState) -> list[GraphBreakRegion]:
    """The breaks that the roots of the files importing the linted one meet in it, and those its
    own module classes meet in their methods under a forward they inherit from another file, at
    its lines; run in what is left of the file's budget (`state`'s deadline and steps)."""
    main = resolver.main
    reading = resolver.reading_linted_text()
    reach = FileState(state.deadline, state.reuse_inlined, state.max_steps - state.steps, init_attributes)
    found: list[GraphBreakRegion] = []
    if not options.compiled_only:
        settings = config_settings(resolver)
        for root in inherited_forward_roots(resolver):
            if _defines_methods(root.cls):  # else the base forward meets only the base's lines
                found.extend(_breaks_in_file(reading, reach, root,
                                             replace(options.with_written(settings), **root.settings)))
    for importer in importing_files(reading, index, main, MAX_IMPORTERS):
        theirs = Resolver(importer, resolver.project, module_bases=resolver.module_bases,
                          libraries=resolver.libraries)
        settings = config_settings(theirs)
        for root in _roots(theirs, index, options):
            if _names_linted_file(reading, importer, root):
                found.extend(_breaks_in_file(reading, reach, root,
                                             replace(options.with_written(settings), **root.settings)))
    return found


def _breaks_in_file(resolver: Resolver, state: FileState, root: Root, options: Options) -> list[GraphBreakRegion]:
    """The breaks `root` meets that are reported in the linted file; none when it could not be
    followed to its end."""
    graph = Graph(root.name, resolver.main.path)
    try:
        Interpreter(resolver, options, state, graph).build(root)
    except Exception:  # noqa: BLE001 - not followed to its end: it tells nothing here
        return []
    return [region for region in annotate(graph, options) if _in_file(region, resolver.main.path)]


def _roots(resolver: Resolver, index: CompileIndex, options: Options) -> list[Root]:
    """The roots the analysis of the importing file would run (its compile calls from the index),
    and its module classes inheriting another file's forward, which run their own methods."""
    path = resolver.main.path
    calls = index.calls(path, index.calls_by_file.get(path, []))
    roots = find_roots(resolver, library_roots=options.library_roots, compile_calls=calls)
    if options.compiled_only:
        return [root for root in roots if root.compiled or root.library]
    return roots + inherited_forward_roots(resolver)


def _defines_methods(cls: nodes.ClassDef) -> bool:
    """Does the class define a method of its own other than `__init__`?"""
    return any(isinstance(node, nodes.FunctionDef) and node.name != "__init__" for node in cls.body)


def _names_linted_file(resolver: Resolver, importer: SourceModule, root: Root) -> bool:
    """Does the root's function, or its class, name a function, class or module the linted
    file (`resolver.main`) defines, through the importer's module-level names?"""
    main = resolver.main
    names = {name.name for name in nodes_of_class(root.cls or root.function, nodes.Name)}
    for name in sorted(names & set(importer.node.locals)):
        binding = resolver.global_binding(importer, name)
        if binding is not None and (binding.module is main or binding.kind == "module" and binding.qname == main.modname):
            return True
    return False


def _in_file(region: GraphBreakRegion, path: str) -> bool:
    """Is the region reported in the linted file: the construct there, or a call there that
    reaches it (else report_site left it at the construct, in another file)?"""
    return region.construct_file == path or region.site is not None
