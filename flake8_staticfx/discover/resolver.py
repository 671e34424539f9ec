"""Name resolution by import statements: what a module-level name of the linted file, or of a
module of its project or libraries, is bound to; the classes' hierarchies and what their
decorators say."""
from __future__ import annotations

import ast
import functools
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from astroid import nodes

from ..config import DEFAULT_MODULE_BASES
from .oversized import oversized_module
from .parse import decorated, last_name, nodes_of_class
from .projects import NEVER_FOLLOWED, NO_LIBRARIES, Libraries, Project, SourceModule, is_oversized, module_text
from .reads import note

TORCH_MODULE = "torch.nn.Module"
CONTAINERS = frozenset({"torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict"})
NOT_LEAVES = CONTAINERS | {TORCH_MODULE, "torch.nn.Parameter", "torch.nn.ParameterList",
                           "torch.nn.ParameterDict", "torch.nn.Buffer"}
ENUM_BASES = frozenset({"enum.Enum", "enum.IntEnum", "enum.StrEnum", "enum.Flag", "enum.IntFlag"})
DICT_BASES = frozenset({"dict", "builtins.dict", "collections.OrderedDict"})
# Dict-backed dataclass bases whose `__post_init__` puts each field that is not None in the
# dict, in declaration order, so that `out[0]` is the first of them (values/objects.py
# OutputRecord): transformers' ModelOutput, diffusers' BaseOutput, matched by name.
OUTPUT_RECORD_BASES = frozenset({"ModelOutput", "BaseOutput"})
DATACLASS = "dataclass"  # decorator_names keeps the bare name of dataclasses.dataclass (TRANSPARENT_LIBRARY_DECORATORS)
DATACLASS_TRANSFORMS = frozenset({"typing.dataclass_transform", "typing_extensions.dataclass_transform"})
# Class decorators a dataclass may carry that keep its generated `__init__`: the markers, docs,
# and huggingface_hub's `strict`, which only validates the fields' types.
DATACLASS_DECORATORS = DATACLASS_TRANSFORMS | {DATACLASS, "auto_docstring", "huggingface_hub.dataclasses.strict"}
MAX_RESOLVE_DEPTH = 12
_STAR_IMPORT = re.compile(r"from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import[ \t]+\*")

# A decorator that runs the function's body with dynamo settings patched (see config_patch).
CONFIG_PATCH = "torch._dynamo.config.patch"
TRANSPARENT_DECORATORS = frozenset({
    "torch.no_grad", "torch.enable_grad", "torch.inference_mode", "torch.autograd.no_grad",
    "torch.jit.ignore", "torch.jit.unused", "torch.jit.export", "torch.compile", CONFIG_PATCH,
    "torch.compiler.compile", "functools.wraps", "typing.overload", "torch.autocast",
    "torch.amp.autocast", "torch.cuda.amp.autocast", "torch.amp.custom_fwd",
    "torch.cuda.amp.custom_fwd", "abc.abstractmethod", "typing.final",
    "staticmethod", "classmethod", "property", "functools.cached_property",
    # `with manager():` runs the generator's body around the block; dynamo traces it
    # (measured: cfg_user_context_managers.py), so it is inlined where the `with` calls it.
    "contextlib.contextmanager",
})
# Decorators of model libraries that keep the function's body as the code that runs (they
# add docs, convert outputs or rename arguments), matched by their last name.
TRANSPARENT_LIBRARY_DECORATORS = frozenset({
    "auto_docstring", "add_start_docstrings", "add_start_docstrings_to_model_forward",
    "replace_return_docstrings", "add_code_sample_docstrings", "can_return_tuple",
    "check_model_inputs", "deprecate_kwarg", "merge_with_config_defaults", "capture_outputs",
    "use_kernel_forward_from_hub", "use_kernelized_func", "use_kernel_func_from_hub",
    "apply_forward_hook", "dataclass", "register_to_config",
    "lru_cache", "cache", "wraps", "overload", "final", "abstractmethod", "total_ordering",
    "register_notrace_module", "register_notrace_function",  # timm: marks for torch.fx, returns its argument
})
# Class decorators that replace forward by one implementation picked from the configuration at
# run time (matched by last name): the setting, its default and the value that runs the forward
# written in the class. transformers' experts dispatch: grouped_mm unless asked for, measured on
# CPU with the pinned version (modeling_utils.get_correct_experts_implementation).
CONFIG_DISPATCH_DECORATORS = {
    "use_experts_implementation": ("config._experts_implementation", "grouped_mm", "eager"),
}
# unittest.mock.patch and its .object/.dict forms wrap the function in a patcher from the
# unittest directory, which dynamo skips (GB0007, GB0008; measured: cfg_mock_decorated.py).
MOCK_PATCH_DECORATORS = ("unittest.mock.patch",)
DISABLE_DECORATORS = frozenset({
    "torch.compiler.disable", "torch._dynamo.disable", "torch._disable_dynamo",
})


def normalize_qname(qname: str) -> str:
    """Spell torch names the way users see them: torch.nn.modules.linear.Linear -> torch.nn.Linear."""
    parts = qname.split(".")
    if parts[:3] == ["torch", "nn", "modules"] and len(parts) >= 4:
        return "torch.nn." + parts[-1]
    return qname


def is_torch_layer(qname: str) -> bool:
    """A torch.nn (or torch.ao.nn) class other than the containers: fx treats it as a leaf."""
    parts = qname.split(".")
    if qname in NOT_LEAVES or len(parts) < 3:
        return False
    in_nn = parts[:2] == ["torch", "nn"] or parts[:3] == ["torch", "ao", "nn"]
    return in_nn and parts[-1][:1].isupper() and parts[2] not in ("functional", "init", "utils")


@dataclass(frozen=True)
class Binding:
    """What a module-level name is bound to.

    kind: "external" (qname outside the project), "class", "function", "assign" (node is the
    assigned value expression), or "module" (a project module).
    """

    kind: str
    qname: str = ""
    node: nodes.NodeNG | None = None
    module: SourceModule | None = None


@dataclass
class Resolver:
    """Resolves module-level names of one file and, through imports, of its project."""

    main: SourceModule
    project: Project
    module_bases: tuple[str, ...] = DEFAULT_MODULE_BASES
    # Installed packages, searched after the project (a project module shadows a library).
    libraries: Libraries = NO_LIBRARIES
    # Per-file caches: the answers cannot change while one file is analysed.
    _class_is_module: dict[nodes.ClassDef, bool] = field(default_factory=dict)
    _qualified: dict[str, Binding] = field(default_factory=dict)
    _mro: dict[nodes.ClassDef, list[nodes.ClassDef]] = field(default_factory=dict)
    _sources: dict[nodes.Module, SourceModule] = field(default_factory=dict)
    _loaded: dict[str, SourceModule | None] = field(default_factory=dict)
    _is_module: dict[str, bool] = field(default_factory=dict)
    _module_paths: dict[tuple[Project, str], tuple[str | None, tuple[str, ...]]] = field(default_factory=dict)
    _decorators: dict[nodes.NodeNG, list[str]] = field(default_factory=dict)
    _bases: dict[nodes.NodeNG, Binding | None] = field(default_factory=dict)
    _star_exports: dict[tuple[str, str], Binding | None] = field(default_factory=dict)
    _star_imports: dict[nodes.Module, list[nodes.ImportFrom]] = field(default_factory=dict)
    _may_bind_memo: dict[tuple[str, str], bool] = field(default_factory=dict)

    def is_project_module(self, modname: str) -> bool:
        """Is `modname` a module whose source we read: the project's, or a library's?"""
        found = self._is_module.get(modname)
        if found is None:
            library = self._library(modname)
            found = self._is_module[modname] = self._module_path(self.project, modname) is not None \
                or library is not None and self._module_path(library, modname) is not None
        return found

    def _library(self, modname: str) -> Project | None:
        """The installed package a module name is in, unless the project has a module of that
        top-level name, which shadows it (the project comes first on the user's path)."""
        top = modname.split(".", 1)[0]
        return None if self._module_path(self.project, top) is not None else self.libraries.package(top)

    def _module_path(self, project: Project, modname: str) -> str | None:
        """`project.module_path(modname)`, looked up once per file (the project's `transformers`
        was looked up 7,790 times over benchmarks/library_users, a star-imported module four
        times), noting again on each ask the paths the lookup tested, as a fresh lookup would."""
        found = self._module_paths.get((project, modname))
        if found is None:
            found = self._module_paths[project, modname] = project.module_lookup(modname)
        else:
            for path in found[1]:
                note(path)
        return found[0]

    def missing_package(self, qname: str) -> str | None:
        """The top-level package of `qname` when we would follow it but find its source neither
        in the project nor on the library search path."""
        top = qname.split(".", 1)[0]
        return None if self.is_project_module(top) else self.libraries.missing(qname)

    def unbound_name(self, qname: str) -> bool:
        """Is `qname` a name of a module whose source we read that no statement we follow binds
        (made at import time, a lazy `__getattr__`, a re-export we cannot follow)? A call of it
        is not followed, which the user hears of."""
        top = qname.split(".", 1)[0]
        return self.is_project_module(top) and qname not in _table_names() \
            and self.qualified(qname).kind == "external"

    def reading_linted_text(self) -> Resolver:
        """A fresh resolver of the same file, through which other modules importing the
        linted one get its text being linted (not its saved copy, parsed apart)."""
        return Resolver(self.main, self.project, self.module_bases, self.libraries,
                        _loaded={self.main.modname: self.main})

    def load(self, modname: str) -> SourceModule | None:
        """A project (or library) module, checked on disk once per analysed file."""
        if modname not in self._loaded:
            self._loaded[modname] = self._owner(modname).load(modname)
        return self._loaded[modname]

    def _owner(self, modname: str) -> Project:
        """The project, or the installed package, whose module `modname` is read."""
        library = None if self._module_path(self.project, modname) is not None else self._library(modname)
        return library or self.project

    def function_slice(self, modname: str, name: str) -> SourceModule | None:
        """The slice of module `modname` holding its top-level function `name`, when the module
        is over MAX_PROJECT_MODULE_SIZE (see OversizedModule.function_slice); `source_of` then
        answers it for the slice's nodes. None for a module analysed whole, for a name that is
        no such function, and for a name our tables know (it stays theirs)."""
        if f"{modname}.{name}" in _table_names():
            return None
        path = self._owner(modname).module_path(modname)
        try:
            stat = os.stat(path) if path is not None else None
        except OSError:
            return None
        if stat is None or not is_oversized(stat.st_size):
            return None
        sliced = oversized_module(path, (stat.st_mtime_ns, stat.st_size)).function_slice(modname, name)
        if sliced is not None:
            self._sources[sliced.node] = sliced
        return sliced

    def source_of(self, node: nodes.NodeNG) -> SourceModule:
        root = node.root()
        if root is self.main.node:
            return self.main
        found = self._sources.get(root)
        if found is None:
            found = self._sources[root] = self.load(root.name) or self.main
        return found

    def global_binding(self, module: SourceModule, name: str, depth: int = 0) -> Binding | None:
        bound = module.node.locals.get(name)
        if depth > MAX_RESOLVE_DEPTH:
            return None
        if not bound:
            return self._star_binding(module, name, depth)
        if self._stars_of(module):  # a star import after the statements binding `name` rebinds it
            later = self._star_binding(module, name, depth, after=max(node.lineno or 0 for node in bound))
            if later is not None:
                return later
        if module.sliced and f"{module.modname}.{name}" in _table_names():
            return Binding("external", f"{module.modname}.{name}")
        # Several bindings: `try: import a except ImportError: a = None`; take the first
        # import, otherwise the last definition.
        for node in bound:
            if isinstance(node, (nodes.Import, nodes.ImportFrom)):
                return self.import_binding(module, node, name, depth)
        return self._definition_binding(module, bound[-1])

    def _stars_of(self, module: SourceModule) -> list[nodes.ImportFrom]:
        if module.node not in self._star_imports:
            self._star_imports[module.node] = _star_imports(module.node)
        return self._star_imports[module.node]

    def _star_binding(self, module: SourceModule, name: str, depth: int, after: int = 0) -> Binding | None:
        """`name` as a `from .x import *` of `module` below line `after` binds it (torch_geometric.nn,
        kornia: a package re-exporting its submodules): the last such import of a module we read
        that exports the name wins, as in Python."""
        key = (module.modname, name)
        if key in self._star_exports:
            return self._star_exports[key]
        self._star_exports[key] = None  # cuts cycles of star imports
        for node in reversed(self._stars_of(module)):
            if (node.lineno or 0) <= after:
                break
            base = _relative_module(module, node.modname, node.level) if node.level else node.modname
            if not base or not self.is_project_module(base) or not self._may_bind(base, name):
                continue
            source = self.load(base)
            if source is None or not _exports(source.node, name):
                continue
            binding = self.global_binding(source, name, depth + 1)
            if binding is not None:
                self._star_exports[key] = binding
                return binding
        return None

    def _may_bind(self, modname: str, name: str) -> bool:
        """Can module `modname` bind `name`: does its text spell it, or does a module it
        star-imports bind it? Read in the text before parsing anything: transformers.models
        star-imports its ~400 model packages, each its submodules, and parsing them all on the
        way to `transformers.BertConfig` cost 12 s and 900 MiB."""
        key = (modname, name)
        if key not in self._may_bind_memo:
            self._may_bind_memo[key] = False  # cuts cycles of star imports
            loaded = self._loaded.get(modname)
            path = loaded.path if loaded is not None else self._module_path(self._owner(modname), modname)
            text = loaded.source if loaded is not None else None if path is None else module_text(path)
            self._may_bind_memo[key] = text is None or name in text or any(
                self._may_bind(target, name) for target in _star_targets(modname, path, text)
                if self.is_project_module(target))
        return self._may_bind_memo[key]

    def _definition_binding(self, module: SourceModule, node: nodes.NodeNG) -> Binding | None:
        if isinstance(node, nodes.ClassDef):
            return Binding("class", node.qname(), node, module)
        if isinstance(node, nodes.FunctionDef):
            return Binding("function", node.qname(), node, module)
        if isinstance(node, nodes.AssignName):
            parent = node.parent
            if isinstance(parent, (nodes.Assign, nodes.AnnAssign)) and parent.value is not None:
                if isinstance(parent, nodes.AnnAssign) or parent.targets == [node]:
                    return Binding("assign", node.name, parent.value, module)
        return None

    def import_binding(self, module: SourceModule, node: nodes.Import | nodes.ImportFrom, name: str,
                       depth: int = 0) -> Binding | None:
        """What the import statement `node` of `module` binds `name` to."""
        if isinstance(node, nodes.Import):
            for imported, alias in node.names:
                if alias == name:
                    return self.qualified(imported, depth)
                if alias is None and imported.split(".")[0] == name:
                    return self.qualified(name, depth)
            return None
        for imported, alias in node.names:
            if (alias or imported) == name:
                base = node.modname
                if node.level:
                    base = _relative_module(module, node.modname, node.level)
                    if base is None:
                        return None
                return self.qualified(f"{base}.{imported}" if base else imported, depth)
        return None

    def qualified(self, qname: str, depth: int = 0) -> Binding:
        """Resolve a dotted name: into the project where it is the project's, else external."""
        found = self._qualified.get(qname)
        if found is None:
            found = self._qualified[qname] = self._resolve_qualified(qname, depth)
        return found

    def _resolve_qualified(self, qname: str, depth: int) -> Binding:
        parts = qname.split(".")
        if qname in _table_names() and self.project.module_path(parts[0]) is None:
            return Binding("external", qname)  # a library function our tables know by name
        for cut in range(len(parts), 0, -1):
            modname = ".".join(parts[:cut])
            if not self.is_project_module(modname):
                continue
            if cut == len(parts):
                return self._package_attribute(parts, depth) or Binding("module", modname)
            source = self.load(modname) or self.function_slice(modname, parts[cut])
            if source is None:
                break
            binding = self.global_binding(source, parts[cut], depth + 1)
            if binding is None:
                break
            for attr in parts[cut + 1:]:
                binding = self.attribute(binding, attr, depth + 1)
                if binding is None:
                    return Binding("external", qname)
            return binding
        return Binding("external", _torch_class_made_at_import(normalize_qname(qname)))

    def _package_attribute(self, parts: list[str], depth: int) -> Binding | None:
        """`pkg.name` that pkg/__init__.py binds to something else than its submodule `name`
        (timm.layers: `from .create_attn import create_attn`): what an imported package's
        attribute is, as Python looks it up; None when it is the submodule (loaded lazily)."""
        package = ".".join(parts[:-1])
        if not package or not self.is_project_module(package):
            return None
        source = self.load(package)
        if source is None or os.path.basename(source.path) != "__init__.py" or parts[-1] not in source.node.locals:
            return None
        qname = ".".join(parts)
        self._qualified[qname] = Binding("module", qname)  # `from . import name` binds the submodule
        binding = self.global_binding(source, parts[-1], depth + 1)
        return binding if binding is not None and binding.kind != "module" else None

    def attribute(self, binding: Binding, attr: str, depth: int = 0) -> Binding | None:
        if binding.kind == "external":
            return Binding("external", normalize_qname(f"{binding.qname}.{attr}"))
        if binding.kind == "module":
            return self.qualified(f"{binding.qname}.{attr}", depth + 1)
        return None

    def expr_binding(self, expr: nodes.NodeNG, module: SourceModule | None = None) -> Binding | None:
        """Resolve a `Name` or `Attribute` chain at module level (decorators, bases)."""
        module = module or self.source_of(expr)
        attrs = []
        while isinstance(expr, nodes.Attribute):
            attrs.append(expr.attrname)
            expr = expr.expr
        if not isinstance(expr, nodes.Name):
            return None
        binding = self.global_binding(module, expr.name)
        if binding is None:
            return Binding("external", expr.name) if expr.name in _BUILTIN_NAMES else None
        for attr in reversed(attrs):
            binding = self.attribute(binding, attr)
            if binding is None:
                return None
        return binding

    def expr_qname(self, expr: nodes.NodeNG) -> str | None:
        binding = self.expr_binding(expr)
        return binding.qname if binding is not None else None

    # -- classes ------------------------------------------------------------

    def base_classes(self, cls: nodes.ClassDef) -> Iterator[Binding]:
        """The resolved bases of `cls`, one at a time: a caller that stops at the first
        module base never parses the library of a mixin further right. A configured library
        base (PreTrainedModel) stays a name, so that its library is never parsed for it."""
        for base in cls.bases:
            if isinstance(base, nodes.Subscript):  # Generic[T], SomeBase[Config]
                base = base.value
            if base not in self._bases:
                if last_name(base) in self.module_bases:
                    self._bases[base] = Binding("external", last_name(base))
                else:
                    self._bases[base] = self.expr_binding(base, self.source_of(cls))
            if self._bases[base] is not None:
                yield self._bases[base]

    def mro(self, cls: nodes.ClassDef) -> list[nodes.ClassDef]:
        """The project classes of `cls`'s MRO (left-to-right depth-first, cycles cut)."""
        cached = self._mro.get(cls)
        if cached is None:
            cached = self._mro[cls] = list(self.iter_mro(cls))
        return cached

    def iter_mro(self, cls: nodes.ClassDef) -> Iterator[nodes.ClassDef]:
        """`mro(cls)` lazily, for a search that usually ends at `cls` itself."""
        seen: list[nodes.ClassDef] = []
        stack = [cls]
        while stack and len(seen) < 64:
            current = stack.pop(0)
            if current in seen:
                continue
            seen.append(current)
            yield current
            stack = [b.node for b in self.base_classes(current) if b.kind == "class"] + stack

    def is_enum_class(self, cls: nodes.ClassDef) -> bool:
        return any(b.kind == "external" and b.qname in ENUM_BASES or b.kind == "class" and self.is_enum_class(b.node)
                   for owner in self.mro(cls)[:1] for b in self.base_classes(owner))

    def is_dict_subclass(self, cls: nodes.ClassDef) -> bool:
        """A project class over `dict` or `OrderedDict` that keeps their constructor and adds
        methods (transformers' ClassInstantier, whose `__getitem__` builds the class it maps
        to): an instance holds the dict it is built from."""
        mro = self.mro(cls)
        if any(owner.decorators or "__init__" in owner.locals or "__new__" in owner.locals for owner in mro):
            return False
        bindings = [(owner, list(self.base_classes(owner))) for owner in mro]
        if any(len(found) != len(owner.bases) for owner, found in bindings):
            return False
        library = [b.qname for _, found in bindings for b in found if b.kind != "class"]
        return len(library) == 1 and library[0] in DICT_BASES

    def class_is_opaque(self, cls: nodes.ClassDef) -> bool:
        """A class decorator we do not know may swap forward (transformers' experts dispatch,
        allow_in_graph): its forward is neither linted nor inlined."""
        return self.opaque_decorator(cls) is not None

    def opaque_decorator(self, cls: nodes.ClassDef) -> tuple[nodes.ClassDef, nodes.NodeNG] | None:
        """(class, decorator) of the first decorator we do not know on `cls` or on the classes
        it inherits forward through. Only the classes up to the one defining forward matter, so
        mixins further up are never parsed for this."""
        seen = set()
        stack = [cls]
        while stack and len(seen) < 64:
            owner = stack.pop()
            if owner in seen:
                continue
            seen.add(owner)
            decorator = self.unknown_decorator(owner)
            if decorator is not None:
                return owner, decorator
            if "forward" not in owner.locals:  # the forward that runs is further up
                stack.extend(b.node for b in self.base_classes(owner) if b.kind == "class")
        return None

    def is_plain_class(self, cls: nodes.ClassDef) -> bool:
        """A project class whose instances dynamo traces as user objects: no decorator, and
        only project classes or `object` as bases (no library base such as dict, Exception,
        Enum or a dataclass, whose behaviour we do not see)."""
        if any(owner.decorators or not self._project_bases_only(owner) for owner in self.mro(cls)):
            return False
        return not self.is_module_class(cls)

    def _project_bases_only(self, cls: nodes.ClassDef) -> bool:
        """Are the class's own bases project classes or `object`, each resolved?"""
        bindings = list(self.base_classes(cls))
        return len(bindings) == len(cls.bases) and all(
            b.kind == "class" or b.kind == "external" and b.qname == "object" for b in bindings)

    def is_dataclass(self, cls: nodes.ClassDef) -> bool:
        """A project class made by `@dataclasses.dataclass` (called or not), or derived from a
        base marked `@dataclass_transform` (PEP 681: transformers' PreTrainedConfig makes each
        subclass a dataclass), over plain classes and other such dataclasses: its generated
        `__init__` is known from its fields."""
        mro = self.mro(cls)
        made = DATACLASS in self.decorator_names(cls) or any(
            name in DATACLASS_TRANSFORMS for owner in mro[1:] for name in self.decorator_names(owner))
        if not made or any(not set(self.decorator_names(owner)) <= DATACLASS_DECORATORS
                           or not self._project_bases_only(owner) for owner in mro):
            return False
        return not self.is_module_class(cls)

    def is_output_record(self, cls: nodes.ClassDef) -> bool:
        """A `@dataclass` over an OUTPUT_RECORD_BASES class deriving from dict or OrderedDict."""
        return DATACLASS in self.decorator_names(cls) and any(
            owner.name in OUTPUT_RECORD_BASES and any(
                b.kind == "external" and b.qname in DICT_BASES for b in self.base_classes(owner))
            for owner in self.mro(cls)[1:])

    def oversized_output_record(self, qname: str) -> dict[str, bool] | None:
        """The fields (name: defaults to None) of the output record class `qname` names in a
        project module too large to analyse (MAX_PROJECT_MODULE_SIZE: transformers'
        modeling_outputs.py, which every model file imports), read from its class statements
        alone; None when `qname` is no such class."""
        modname, _, name = qname.rpartition(".")
        path = self.project.module_path(modname) if modname else None
        if path is None:
            return None
        try:
            stat = os.stat(path)
        except OSError:
            return None
        return _oversized_record(path, (stat.st_mtime_ns, stat.st_size), name)

    def is_module_class(self, cls: nodes.ClassDef) -> bool:
        cached = self._class_is_module.get(cls)
        if cached is not None:
            return cached
        self._class_is_module[cls] = False  # cuts cycles in class hierarchies
        # A configured base is recognised by name, without parsing the library defining it.
        result = any(last_name(base) in self.module_bases for base in cls.bases)
        # A loop, not any() over a generator: on Python 3.12 each any() level of this recursion
        # takes C stack, and a hierarchy 500 classes deep ran out of it (RecursionError).
        for binding in () if result else self.base_classes(cls):
            if self._is_module_base(binding):
                result = True
                break
        self._class_is_module[cls] = result
        return result

    def _is_module_base(self, binding: Binding) -> bool:
        if binding.kind == "class":
            return self.is_module_class(binding.node)
        if binding.kind != "external":
            return False
        qname = binding.qname
        if qname == TORCH_MODULE or is_torch_layer(qname) or qname in CONTAINERS:
            return True
        short = qname.rsplit(".", 1)[-1]
        return any(base in (qname, short) for base in self.module_bases)

    # -- decorators and members ---------------------------------------------

    def decorator_names(self, function: nodes.FunctionDef | nodes.ClassDef) -> list[str]:
        names = self._decorators.get(function)
        if names is None:
            names = self._decorators[function] = [
                self._decorator_name(d) for d in (function.decorators.nodes if function.decorators else ())]
        return names

    def _decorator_name(self, decorator: nodes.NodeNG) -> str:
        """Qualified name of a decorator; a library decorator known by name keeps its bare name,
        so that telling a property from a staticmethod never parses the library defining it."""
        bare = last_name(decorated(decorator))
        if bare in TRANSPARENT_LIBRARY_DECORATORS:
            return bare
        return self.decorator_qname(decorator) or "?"

    def is_disabled(self, function: nodes.FunctionDef) -> bool:
        return any(name in DISABLE_DECORATORS for name in self.decorator_names(function))

    def is_mock_patched(self, function: nodes.FunctionDef) -> bool:
        """Decorated with unittest.mock.patch (or .object, .dict): dynamo skips the patcher."""
        return any(name.startswith(MOCK_PATCH_DECORATORS) for name in self.decorator_names(function))

    def is_opaque(self, function: nodes.FunctionDef | nodes.ClassDef) -> bool:
        """A decorator we do not know may replace the function (or a class's forward): do not
        inline through it, and do not lint it as a root."""
        return self.unknown_decorator(function) is not None

    def unknown_decorator(self, function: nodes.FunctionDef | nodes.ClassDef) -> nodes.NodeNG | None:
        """The first decorator of `function` that is not known to leave it in place, if any."""
        for decorator in function.decorators.nodes if function.decorators else ():
            name = self._decorator_name(decorator)
            if name in TRANSPARENT_LIBRARY_DECORATORS or name in TRANSPARENT_DECORATORS or name in DISABLE_DECORATORS:
                continue
            if name.endswith((".setter", ".getter", ".deleter")):
                continue
            target = decorator.func if isinstance(decorator, nodes.Call) else decorator
            binding = self.expr_binding(target)
            if binding is not None and binding.kind == "function" and _wraps_its_argument(binding.node):
                continue
            return decorator
        return None

    def find_method(self, cls: nodes.ClassDef, name: str,
                    after: nodes.ClassDef | None = None) -> tuple[nodes.FunctionDef, nodes.ClassDef] | None:
        """`name` defined as a def in the project part of `cls`'s MRO (after `after`, for super())."""
        order = self.mro(cls)
        if after is not None:
            order = order[order.index(after) + 1:] if after in order else []
        for owner in order:
            defined = owner.locals.get(name)
            if defined:
                node = defined[-1]
                return (node, owner) if isinstance(node, nodes.FunctionDef) else None
        return None

    def find_class_attribute(self, cls: nodes.ClassDef, name: str) -> nodes.NodeNG | None:
        """The value expression of a class-level `name = ...` in the project part of the MRO."""
        for owner in self.mro(cls):
            for node in owner.locals.get(name, ()):
                parent = node.parent
                if isinstance(node, nodes.AssignName) and isinstance(parent, (nodes.Assign, nodes.AnnAssign)):
                    if parent.value is not None and parent.parent is owner:
                        return parent.value
                return None
        return None

    def is_property(self, function: nodes.FunctionDef) -> bool:
        return any(n in ("property", "functools.cached_property") for n in self.decorator_names(function))

    def is_staticmethod(self, function: nodes.FunctionDef) -> bool:
        return "staticmethod" in self.decorator_names(function)

    def is_classmethod(self, function: nodes.FunctionDef) -> bool:
        return "classmethod" in self.decorator_names(function)

    def imported_from_torch(self, expr: nodes.NodeNG) -> bool:
        """Is the name at the root of `expr` imported from torch? (A cheap test before resolving,
        which may parse project modules.)"""
        while isinstance(expr, nodes.Attribute):
            expr = expr.expr
        if not isinstance(expr, nodes.Name):
            return False
        for node in self.main.node.locals.get(expr.name, ()):
            if isinstance(node, nodes.ImportFrom) and (node.modname or "").split(".")[0] == "torch":
                return True
            if isinstance(node, nodes.Import) and any(name.split(".")[0] == "torch" for name, _ in node.names):
                return True
        return False

    def decorator_qname(self, decorator: nodes.NodeNG) -> str | None:
        if isinstance(decorator, nodes.Call):
            decorator = decorator.func
        return self.expr_qname(decorator)


@functools.lru_cache(maxsize=1024)
def _oversized_record(path: str, stamp: tuple[int, int], name: str) -> dict[str, bool] | None:
    """Resolver.oversized_output_record's answer (shared: read it, never change it), worked
    out once per name while the file is unchanged: every call not followed asks, 2,601 times
    over the 200 sampled library files, and the search of the module's text for `name` took
    0.9 s of the plugin's 34 s there."""
    return _record_fields(_oversized_classes(path, stamp, name), name, 0)


def _oversized_classes(path: str, stamp: tuple[int, int], name: str) -> dict[str, ast.ClassDef]:
    """The top-level classes of a module over MAX_PROJECT_MODULE_SIZE ({} for one below it,
    which is analysed in full), when it has a `@dataclass` class `name`: the `ast` parse (about
    10 ms for 118 KB) is done only for such a module, once while the file is unchanged."""
    _, size = stamp
    if not is_oversized(size):
        return {}
    module = oversized_module(path, stamp)
    declared = rf"^@(?:dataclasses\.)?dataclass\b.*\n(?:@.*\n)*class {re.escape(name)}\b"
    return module.classes if re.search(declared, module.text, re.M) else {}


def _record_fields(classes: dict[str, ast.ClassDef], name: str, depth: int) -> dict[str, bool] | None:
    """Fields of the `@dataclass` `name` over an OUTPUT_RECORD_BASES class through classes of
    the same module, bases' first (name: its default is None)."""
    cls = classes.get(name)
    if cls is None or depth > MAX_RESOLVE_DEPTH or len(cls.bases) != 1 or cls.keywords:
        return None
    if not any(_ast_last_name(d.func if isinstance(d, ast.Call) else d) == DATACLASS for d in cls.decorator_list):
        return None
    base = _ast_last_name(cls.bases[0])
    fields = {} if base in OUTPUT_RECORD_BASES else _record_fields(classes, base, depth + 1)
    if fields is None:
        return None
    fields = dict(fields)
    for statement in cls.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) \
                and "ClassVar" not in ast.unparse(statement.annotation):
            value = statement.value
            fields[statement.target.id] = isinstance(value, ast.Constant) and value.value is None
    return fields


def _star_imports(module: nodes.Module) -> list[nodes.ImportFrom]:
    """The module's `from m import *` statements, in source order (under `if` and `try` too)."""
    return [node for node in nodes_of_class(module, nodes.ImportFrom, (nodes.FunctionDef, nodes.ClassDef))
            if any(imported == "*" for imported, _ in node.names)]


def _exports(module: nodes.Module, name: str) -> bool:
    """Does `from module import *` bind `name`? The names its `__all__` lists, when it is a
    list or tuple of strings; otherwise its public names (as Python, without `__all__`)."""
    listed = _all_names(module)
    return name in listed if listed is not None else not name.startswith("_")


def _all_names(module: nodes.Module) -> frozenset[str] | None:
    """The strings of the module's one `__all__ = [...]` (or tuple); None when it has none or
    builds it otherwise (`__all__ += ...`, a concatenation)."""
    bound = module.locals.get("__all__", [])
    if len(bound) != 1 or not isinstance(bound[0], nodes.AssignName) or not isinstance(bound[0].parent, nodes.Assign):
        return None
    value = bound[0].parent.value
    if not isinstance(value, (nodes.List, nodes.Tuple)):
        return None
    names = [item.value for item in value.elts if isinstance(item, nodes.Const) and isinstance(item.value, str)]
    return frozenset(names) if len(names) == len(value.elts) else None


def _ast_last_name(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return expr.id if isinstance(expr, ast.Name) else None


def _star_targets(modname: str, path: str | None, text: str) -> Iterator[str]:
    """The modules the text's `from m import *` statements name, relative ones made absolute."""
    package = modname.split(".") if path is not None and os.path.basename(path) == "__init__.py" \
        else modname.split(".")[:-1]
    for dots, target in _STAR_IMPORT.findall(text):
        if not dots:
            yield target
        elif len(dots) - 1 <= len(package):
            yield ".".join(p for p in [*package[:len(package) - (len(dots) - 1)], target] if p)


def _relative_module(module: SourceModule, modname: str | None, level: int) -> str | None:
    package = module.modname.split(".")
    if not module.node.package:
        package = package[:-1]
    if level - 1 > len(package):
        return None
    if level > 1:
        package = package[: len(package) - (level - 1)]
    return ".".join(p for p in [*package, modname or ""] if p)


_BUILTIN_NAMES = frozenset(dir(__import__("builtins")))


@functools.lru_cache(maxsize=1)
def _table_names() -> frozenset[str]:
    """Library functions whose meaning comes from tables.py (transformers'
    is_torchdynamo_compiling), which a followed library must not replace with its source."""
    from ..tables import STATIC_FUNCTIONS  # late: tables imports the values, which import us

    return frozenset(name for name in STATIC_FUNCTIONS if name.split(".", 1)[0] not in NEVER_FOLLOWED)


def _torch_class_made_at_import(qname: str) -> str:
    """The torch class a library name no statement binds stands for (tables.RUNTIME_TORCH_SUBCLASSES:
    pyro's TransformedDistribution), else the name itself."""
    from ..tables import RUNTIME_TORCH_SUBCLASSES  # late: tables imports the values, which import us

    return RUNTIME_TORCH_SUBCLASSES.get(qname, qname)


def _wraps_its_argument(decorator: nodes.FunctionDef) -> bool:
    """A project decorator (or decorator factory) whose wrapper is made with functools.wraps
    calls the function it wraps: the body that runs is the decorated one."""
    for inner in nodes_of_class(decorator, nodes.FunctionDef):
        for node in inner.decorators.nodes if inner.decorators else ():
            target = node.func if isinstance(node, nodes.Call) else node
            if last_name(target) == "wraps":
                return True
    return False
