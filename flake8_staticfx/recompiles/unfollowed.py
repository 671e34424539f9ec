"""A driver statement the replay does not follow (a config object built by a library,
`GPT.get_default_config()`): rather than giving up on the driver, the names it binds become
unknown objects (values.Unfollowed), as long as nothing else it could have changed is one the
replay keeps. A compiled call later whose guards read one of them claims nothing for it
(cache.py); the other inputs' recompiles still hold. A branch or loop not followed still stops."""
from __future__ import annotations

import ast

from .read_only import READING_BUILTINS
from .stops import StopReplay
from .values import Const, Function, ListValue, Number, TensorValue, Unfollowed, numeric

# What a statement not followed may read without the replay losing track: values no call can
# change in place (a number, a named function or module, a class of the file: the replay keeps
# no class-level state), and objects a statement not followed made (then forgotten: forget_read).
_HARMLESS = (Const, Number, Function, ast.ClassDef, Unfollowed)
# The names torch goes by in a driver (a torch function not followed may change what dynamo guards).
TORCH_NAMES = frozenset({"torch", "th", "nn", "F", "optim"})


def forgotten_names(statement: ast.stmt, lookup) -> list[str] | None:
    """The names `statement` binds, to be made unknown; None when it may have changed an object
    the replay keeps (a model, a list, a tensor passed to it or written through it), or dynamo's
    own state (a torch function, a torch setting), or runs code the replay would have to follow.
    `lookup(name)` gives a name's value."""
    library = isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) and _library_function(
        statement.value.func, lookup)
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, (ast.AugAssign, ast.AnnAssign)) and statement.value is not None:
        targets = [statement.target]
    elif isinstance(statement, ast.Return) and statement.value is not None:
        targets = []  # `return CN(...)`: the caller's name for it is unknown
    elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) and _root(
            statement.value.func) is not None and isinstance(lookup(_root(statement.value.func)), Unfollowed):
        targets = []  # `config.merge_from_dict(d)`: a method of an object a statement not followed made
    elif library:
        targets = []  # `os.makedirs(out, exist_ok=True)`, `logging.info(...)`: a library's side effect
    else:
        return None  # a bare call, a loop, a branch: what it does is the point of it
    bound = []
    for target in targets:
        for node in ast.walk(target):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                bound.append(node.id)
            elif isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, ast.Store) \
                    and not (_root(node) is not None and isinstance(lookup(_root(node)), Unfollowed)):
                return None  # an attribute or item of an object the replay keeps
    reads_only = _reads_only(statement) or library  # a library function reads the tensors it is given
    for node in ast.walk(statement):
        if isinstance(node, ast.Call) and _dotted_root(node.func) == "torch":
            return None  # a torch function not followed may change what dynamo guards
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and not _harmless(lookup(node.id), reads_only):
            return None
    return bound


def _library_function(func: ast.expr, lookup) -> bool:
    """`os.makedirs`, `logging.info`, `wandb.log`: a function of an imported module other than
    torch, which sees the values it is given and changes none the replay keeps (a module passed
    to it is not harmless: _harmless)."""
    root = _dotted_root(func)
    return isinstance(func, ast.Attribute) and root is not None and root not in TORCH_NAMES and isinstance(
        lookup(root), Function) and lookup(root).name == root


def _harmless(value, reads_only: bool) -> bool:
    """A value a statement not followed cannot have changed; a tensor, or a list of such values,
    too where the statement calls nothing but builtins that only read."""
    if reads_only and isinstance(value, ListValue):
        return all(_harmless(item, reads_only) for item in value.items)
    return isinstance(value, (*_HARMLESS, TensorValue) if reads_only else _HARMLESS)


def _reads_only(statement: ast.stmt) -> bool:
    """A statement whose calls are all of builtins that only read their arguments (minRF's
    `[(tv, tloss) for tv, tloss in zip(t, tlist)]`): it reads tensors without changing them."""
    return all(isinstance(node.func, ast.Name) and node.func.id in READING_BUILTINS
               for node in ast.walk(statement) if isinstance(node, ast.Call))


def forget_read(statement: ast.stmt, lookup) -> None:
    """The objects a statement not followed made that `statement`, not followed either, could
    have changed (`config.merge_from_dict(...)`): what was written on them is no longer known.
    One that calls nothing but builtins that only read and writes no attribute or item (`assert
    config.vocab_size is not None`, `all([config.n_layer is not None, ...])`) changes no object."""
    if _reads_only(statement) and not any(isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(
            node.ctx, ast.Store) for node in ast.walk(statement)):
        return
    for node in ast.walk(statement):
        value = lookup(node.id) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) else None
        if isinstance(value, Unfollowed):
            value.forget()


def item_not_followed(owner, key, functions: dict) -> Unfollowed | Number:
    """`owner[key]` where the replay does not know which item: of an object it does not follow
    (a table the module builds, `category_lines[category]`, `pair[0]`), an object not followed;
    of a list of numbers or strings at an index not known (`l[random.randint(0, len(l) - 1)]`),
    a number or an object not followed; anything else stops the replay."""
    if isinstance(owner, Unfollowed) or isinstance(owner, Function) and owner.name not in functions:
        return Unfollowed()
    items = owner.items if isinstance(owner, ListValue) else None
    if items and isinstance(key, Number) and all(isinstance(item, (Const, Number, Unfollowed)) for item in items):
        return Number() if all(numeric(item) for item in items) else Unfollowed()
    raise StopReplay("subscript")


def _root(node: ast.expr) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _dotted_root(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None
