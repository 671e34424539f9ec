"""Objects of the project that are not modules: an AverageMeter a training loop updates, a
stand-in environment an RL loop steps. Where the replay stops inside one of their methods
(arithmetic on `self.sum`, numpy), the method can only have changed the object itself: its
attributes become unknown (values.Unfollowed) and the call gives an unknown object, rather than
stopping the driver. Judged from the syntax of the class and the method and from the values the
call is given (project_calls.py stops as before for anything else)."""
from __future__ import annotations

import ast

from .syntax import dotted
from .values import Const, Function, Instance, Number, Opaque, Unfollowed

MODULE_BASES = frozenset({"nn.Module", "torch.nn.Module", "Module"})
# What a method may be given and leave as it was: values no call changes in place.
_HARMLESS = (Const, Number, Function, Unfollowed)


def plain_object(instance: Instance, classes: dict[str, ast.ClassDef], depth: int = 0) -> bool:
    """An object of a class of the file that is no nn.Module (through the file's classes it
    derives from) and holds no module or compiled value: what its methods change, no frame reads."""
    if depth > 8 or any(not isinstance(value, (*_HARMLESS, Instance)) and not _data(value)
                        and not _made_from_nothing_given(value, instance.cls)
                        for value in instance.attributes.values()):
        return False
    return not _module_class(instance.cls, classes, 0) and all(
        plain_object(value, classes, depth + 1) for value in instance.attributes.values() if isinstance(value, Instance))


def changes_only_itself(method: ast.FunctionDef, project: set[str]) -> bool:
    """A method that writes only attributes and items of `self` (or names of its own), and calls
    no function or class of the file (`project`) but its own class's methods (through `self`)."""
    for node in ast.walk(method):
        if isinstance(node, (ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await)):
            return False
        if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, ast.Store) and _root(node) != "self":
            return False
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in project:
            return False
    return True


def harmless_arguments(args: list, kwargs: dict) -> bool:
    return all(isinstance(value, _HARMLESS) for value in (*args, *kwargs.values()))


def forget_state(instance: Instance) -> Unfollowed:
    """After a method not followed: the object's attributes no longer known; what it returned."""
    for name in instance.attributes:
        instance.attributes[name] = Unfollowed()
    return Unfollowed()


def _module_class(cls: ast.ClassDef, classes: dict[str, ast.ClassDef], depth: int) -> bool:
    for base in cls.bases:
        name = dotted(base)
        if name in MODULE_BASES or depth > 8 or name in classes and _module_class(classes[name], classes, depth + 1):
            return True
    return False


def _made_from_nothing_given(value, cls: ast.ClassDef) -> bool:
    """An attribute `__init__` made in a way not followed from none of its parameters
    (`self.rng = np.random.default_rng(0)`): it cannot be an object the driver holds."""
    init = next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    if not isinstance(value, Opaque) or init is None:
        return False
    params = {a.arg for a in (*init.args.args[1:], *init.args.kwonlyargs)}
    made = [n for n in ast.walk(init) if isinstance(n, ast.stmt) and n.lineno == value.statement_line]
    return bool(made) and not any(isinstance(n, ast.Name) and n.id in params for n in ast.walk(made[0]))


def _data(value) -> bool:
    """A list or dict of numbers (an env's history, a meter's values)."""
    items = getattr(value, "items", None)
    values = items.values() if isinstance(items, dict) else items if isinstance(items, list) else None
    return values is not None and all(isinstance(item, _HARMLESS) for item in values)


def _root(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None
