"""What a driver file declares, read from its syntax alone: its module constants and
namedtuples, the functions `@torch.compile` decorates, the grad mode a decorator sets, and what an
`__init__` statement the replay does not follow leaves unknown. drivers.py replays statements
with these facts."""
from __future__ import annotations

import ast

from .read_only import READING_METHODS
from .syntax import dotted, forward_of, is_self_attribute
from .values import UNKNOWN, Compiled, Const, Instance, Opaque, Record

GRAD_CONTEXTS = {"no_grad": "no_grad", "inference_mode": "inference_mode", "enable_grad": "grad"}
# Calls that reset dynamo's caches or change its settings or the global state: not followed.
MAX_MODULE_DEPTH = 8  # modules held within one another, for holds_compiled
STRING_TESTS = frozenset({"find", "startswith", "endswith"})
NAMESPACES = frozenset({"SimpleNamespace", "types.SimpleNamespace"})
STATE_SETTERS = ("torch._dynamo.", "torch.compiler.", "torch.set_", "torch._C.", "torch.backends.")


def method_of(cls: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    return next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == name), None)


def dataclass_fields(cls: ast.ClassDef, args: list, kwargs: dict, evaluate) -> dict | None:
    """A @dataclass's fields in order: the arguments given, else their defaults (`evaluate`
    gives a default's value); None where a field has neither."""
    fields = [n for n in cls.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)]
    values = {}
    for index, field_node in enumerate(fields):
        name = field_node.target.id
        if index < len(args):
            values[name] = args[index]
        elif name in kwargs:
            values[name] = kwargs[name]
        elif field_node.value is not None:
            values[name] = evaluate(field_node.value)
        else:
            return None
    return values


def module_constants(tree: ast.Module, derive=None) -> dict[str, Const | Record]:
    """Names the module binds once to a number, string or bool (`learning_rate = 6e-4`), or to a
    namespace of such (`args = SimpleNamespace(gamma=0.99)`, argparse's stand-in), and no
    function rebinds (`global`); `derive(expression, found)` gives the value of one computed
    from those before it (`nz = int(opt.nz)`), or None."""
    rebound = {name for node in ast.walk(tree) if isinstance(node, ast.Global) for name in node.names}
    found: dict[str, Const | Record] = {}
    seen: set[str] = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AnnAssign, ast.AugAssign)) else []
        for target in targets:
            if isinstance(target, ast.Name):
                if target.id in seen:
                    found.pop(target.id, None)
                elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(
                        node.value.value, (int, float, str, bool)):
                    found[target.id] = Const(node.value.value)
                elif isinstance(node, ast.Assign) and namespace(node.value) is not None:
                    found[target.id] = Record(namespace(node.value))
                elif isinstance(node, ast.Assign) and derive is not None and pure(node.value) and len(
                        node.targets) == 1 and derive(node.value, found) is not None:
                    found[target.id] = derive(node.value, found)
                seen.add(target.id)
    return {name: value for name, value in found.items() if name not in rebound}


def namespace(node: ast.expr) -> dict[str, Const] | None:
    """`SimpleNamespace(gamma=0.99, seed=543, top_k=-1)` of constants: its fields."""
    if not (isinstance(node, ast.Call) and dotted(node.func) in NAMESPACES and not node.args):
        return None
    fields = {}
    for keyword in node.keywords:
        value = keyword.value
        negative = isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub)
        if negative and isinstance(value.operand, ast.Constant) and type(value.operand.value) in (int, float):
            fields[keyword.arg] = Const(-value.operand.value)  # makemore's `top_k=-1`
        elif keyword.arg is not None and isinstance(value, ast.Constant):
            fields[keyword.arg] = Const(value.value)
    return fields if len(fields) == len(node.keywords) else None


def namedtuples(tree: ast.Module) -> dict[str, list[str]]:
    """`Name = namedtuple('Name', ['a', 'b'])` at module level: its fields."""
    found = {}
    for node in tree.body:
        value = node.value if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(
            node.targets[0], ast.Name) else None
        if isinstance(value, ast.Call) and dotted(value.func).split(".")[-1] == "namedtuple" and len(value.args) == 2 \
                and isinstance(value.args[1], (ast.List, ast.Tuple)) and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.args[1].elts):
            found[node.targets[0].id] = [e.value for e in value.args[1].elts]
    return found


def library_imports(tree: ast.Module, libraries: frozenset[str]) -> dict[str, str]:
    """The file's top-level names for the functions and modules it imports from `libraries`
    (`from einops import rearrange` -> {"rearrange": "einops.rearrange"}, `import einops as E`
    -> {"E": "einops"}), so that a call names what it calls whatever the import spelled."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 0 and _within(node.module or "", libraries):
            found.update((alias.asname or alias.name, f"{node.module}.{alias.name}") for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update((alias.asname, alias.name) for alias in node.names
                         if alias.asname and _within(alias.name, libraries))
    return found


def torch_aliases(tree: ast.Module) -> dict[str, str]:
    """`import torch as th` (improved-diffusion's spelling), `import torch.nn as nn`: `th.cat` is
    `torch.cat`, `nn.functional.nll_loss` is `torch.nn.functional.nll_loss`."""
    return {alias.asname: alias.name for node in tree.body if isinstance(node, ast.Import)
            for alias in node.names if _within(alias.name, frozenset({"torch"})) and alias.asname}


def _within(module: str, libraries: frozenset[str]) -> bool:
    """`torch.optim.lr_scheduler` is within `torch.optim`, `einops.layers` within `einops`."""
    return any(module == library or module.startswith(f"{library}.") for library in libraries)


def grad_decorator(decorator: ast.expr) -> str | None:
    """The grad mode a decorator sets (`@torch.no_grad()`), None for any other decorator."""
    name = dotted(decorator.func if isinstance(decorator, ast.Call) else decorator)
    short = name.split(".")[-1]
    return GRAD_CONTEXTS[short] if name.startswith("torch.") and short in GRAD_CONTEXTS else None


def initializes_only(function: ast.FunctionDef) -> bool:
    """A function `module.apply` calls on every submodule that only sets parameter values in
    place (DCGAN's `weights_init`: `nn.init.normal_(m.weight, 0.0, 0.02)` by class name): the
    shapes, the requires_grad and the attributes a guard reads stay as they were."""
    for node in ast.walk(function):
        if isinstance(node, (ast.Return, ast.Global, ast.Nonlocal, ast.Yield, ast.Lambda)) or isinstance(
                node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, ast.Store):
            return False
        if isinstance(node, ast.Call) and not _initializing_call(node.func):
            return False
    return True


def _initializing_call(func: ast.expr) -> bool:
    """`nn.init.zeros_(m.bias)`, `m.weight.data.normal_(0.0, 0.02)`, `classname.find('Conv')`."""
    name = dotted(func)
    if name.startswith(("nn.init.", "torch.nn.init.", "init.")):
        return True
    return isinstance(func, ast.Attribute) and (func.attr.endswith("_") and not func.attr.startswith("_") and isinstance(
        func.value, ast.Attribute) and func.value.attr in ("weight", "bias", "data") or func.attr in STRING_TESTS)


def pure(node: ast.expr) -> bool:
    """An expression without calls but of builtins on numbers: evaluating it changes nothing."""
    return all(not isinstance(n, ast.Call) or isinstance(n.func, ast.Name) and n.func.id in (
        "min", "max", "abs", "len", "float", "int") for n in ast.walk(node))


def forget(statement: ast.stmt, instance: Instance, env: dict) -> None:
    """An `__init__` statement not followed: the names it assigns are unknown, and the
    attributes it assigns or calls a method of are opaque (the same object at every call)."""
    for node in ast.walk(statement):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            env[node.id] = UNKNOWN
        elif isinstance(node, ast.Attribute) and is_self_attribute(node):
            stored = isinstance(node.ctx, ast.Store)
            if stored or is_receiver(node, statement):
                instance.attributes[node.attr] = Opaque(statement.lineno)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            root = node.value
            while isinstance(root, ast.Attribute) and not is_self_attribute(root):
                root = root.value
            if is_self_attribute(root):  # self.transformer.wte.weight = ...
                instance.attributes[root.attr] = Opaque(statement.lineno)


def is_receiver(attribute: ast.Attribute, statement: ast.stmt) -> bool:
    """`self.layers` in `self.layers.append(block)`: an object changed in place (not by a method
    that only reads: `self.transformer.parameters()`)."""
    return any(isinstance(node, ast.Attribute) and node.value is attribute and node.attr not in READING_METHODS
               for node in ast.walk(statement))


def is_super_init(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) and isinstance(
        statement.value.func, ast.Attribute) and statement.value.func.attr == "__init__"


def is_compile(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return dotted(target) == "torch.compile"


def compile_setting(decorator: ast.expr) -> bool | None:
    if isinstance(decorator, ast.Call):
        for keyword in decorator.keywords:
            if keyword.arg == "dynamic" and isinstance(keyword.value, ast.Constant):
                return keyword.value.value
    return None


def assigns_only(statements: list[ast.stmt]) -> bool:
    """Statements that only bind names, calling nothing but torch's functions and numbers'
    builtins: running them changes no object the replay keeps."""
    for statement in statements:
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target] if isinstance(
            statement, ast.AugAssign) else None
        if targets is None and not isinstance(statement, ast.Pass):
            return False
        if any(not isinstance(n, (ast.Name, ast.Tuple)) for n in targets or []):
            return False
        for call in (n for n in ast.walk(statement) if isinstance(n, ast.Call)):
            name = dotted(call.func)
            if not (name.startswith(("torch.", "F.", "math.")) and not name.startswith(STATE_SETTERS)
                    or name in ("min", "max", "abs", "float", "int")):
                return False
    return True


def holds_compiled(instance: Instance, compiled_names: set, depth: int = 0) -> bool:
    """Whether calling the module may run something compiled: a block compiled, a forward under
    @torch.compile, a compiled function of the file named in a forward (or too deep to tell)."""
    forward = forward_of(instance.cls)
    if instance.compiled or depth > MAX_MODULE_DEPTH or forward is None and depth == 0 or any(
            isinstance(value, Compiled) for value in instance.attributes.values()):  # `m.forward = torch.compile(..)`
        return True
    named = {n.id for n in ast.walk(instance.cls) if isinstance(n, ast.Name)}  # in forward or a method it calls
    return bool(forward and any(is_compile(d) for d in forward.decorator_list) or named & compiled_names) or any(
        isinstance(block, Instance) and holds_compiled(block, compiled_names, depth + 1) for block in instance.layers())
