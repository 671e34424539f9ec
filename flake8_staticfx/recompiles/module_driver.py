"""The module's own top-level code as a driver: a tutorial or script that trains at module level
(`model = torch.compile(Net())`, then its epochs) has no `main()` to replay (drivers.py).

Its statements are replayed as one more driver, MODULE_DRIVER, the way dynamo sees them when the
file runs as a script: the body of `if __name__ == "__main__":` is the module's own, and `def`,
`class`, imports and docstrings are declarations the replay reads already (Replay.functions,
classes, imports). The names the body binds are the module's globals: the file's functions it
calls read them (Replay.rebound). Only a body that compiles something (`torch.compile`,
`.compile()`), itself or through a function of the file taking parameters (`main(args)`,
`build(config)`), or calls a compiled function of the file is a driver: one that only calls a
`main()` without parameters is main's, replayed already.
"""
from __future__ import annotations

import ast

from .declarations import is_compile

MODULE_DRIVER = "<module>"  # as RECOMPILE_CASES names it (tests/oracle/record_recompiles.py)
_DECLARATIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)


def module_driver(tree: ast.Module, compiled_functions: dict) -> list[tuple[str, list[ast.stmt]]]:
    """The module driver and the statements the module runs as a script, or nothing when they
    compile and call nothing compiled of their own."""
    statements = []
    for node in tree.body:
        for statement in node.body if _main_guard(node) else [node]:
            if not isinstance(statement, _DECLARATIONS) and not _docstring(statement):
                statements.append(statement)
    modules = _other_modules(tree)
    builders = _builders(tree, compiled_functions, modules)
    compiling = any(isinstance(node, ast.Call) and _compiles(node, compiled_functions, modules, builders)
                    for statement in statements for node in ast.walk(statement))
    return [(MODULE_DRIVER, statements)] if compiling else []


def _compiles(call: ast.Call, compiled_functions: dict, modules: set[str], functions: set[str]) -> bool:
    """`torch.compile(model)`, `block.compile()`, a call of an `@torch.compile` function or of one
    of `functions`; not another library's `compile` (`re.compile`)."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "compile":
        return not (isinstance(func.value, ast.Name) and func.value.id in modules)
    return is_compile(call) or isinstance(func, ast.Name) and (func.id in compiled_functions or func.id in functions)


def _builders(tree: ast.Module, compiled_functions: dict, modules: set[str]) -> set[str]:
    """The file's functions taking parameters that compile something, themselves or through
    other functions of the file (`model = build(config)`, `main(args)`)."""
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    compiling: set[str] = set()
    pending = True
    while pending:  # until no function is added: each pass follows the calls one step further
        found = {name for name, function in functions.items() if name not in compiling and any(
            isinstance(node, ast.Call) and _compiles(node, compiled_functions, modules, compiling)
            for node in ast.walk(function))}
        compiling |= found
        pending = bool(found)
    return {name for name in compiling if functions[name].args.args}


def _other_modules(tree: ast.Module) -> set[str]:
    """The names the module's `import` statements bind to libraries other than torch."""
    return {alias.asname or alias.name.split(".")[0] for node in tree.body if isinstance(node, ast.Import)
            for alias in node.names if alias.name.split(".")[0] != "torch"}


def _main_guard(node: ast.stmt) -> bool:
    """`if __name__ == "__main__":` (either way round), without an `else`."""
    if not (isinstance(node, ast.If) and not node.orelse and isinstance(node.test, ast.Compare)
            and len(node.test.ops) == 1 and isinstance(node.test.ops[0], ast.Eq)):
        return False
    sides = [node.test.left, node.test.comparators[0]]
    return any(isinstance(side, ast.Name) and side.id == "__name__" for side in sides) and any(
        isinstance(side, ast.Constant) and side.value == "__main__" for side in sides)


def _docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant) and isinstance(
        statement.value.value, str)
