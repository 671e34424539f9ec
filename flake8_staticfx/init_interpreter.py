"""Interpreting a module's `__init__`: what its attributes are, not what dynamo compiles."""
from __future__ import annotations

from astroid import nodes

from .inline import Frame, bind_arguments, find_method, static_params
from .interpreter import Interpreter
from .ir import Graph, Node
from .rules import Rule
from .values import Module, Obj, UserModule, Value, assume, join_path, signature_of, with_path


def init_attributes(tx: Interpreter, module: UserModule) -> dict[str, Value]:
    """The module's attributes, by interpreting its class's `__init__` (once per instance, and
    once per file for the same class and argument kinds)."""
    if module.attrs is not None:
        return module.attrs
    module.attrs = {}
    if module.cls is None:
        return module.attrs
    init = find_method(tx.resolver, module.cls, "__init__")
    if init is None:
        return module.attrs
    function, owner = init
    key = (module.cls, signature_of(module.ctor_args), None if tx.state.reuse_inlined else module.path)
    cached = tx.state.init_attrs.get(key)
    if cached is not None:
        module.attrs = cached
        return cached
    tx.state.init_attrs[key] = module.attrs
    builder = InitInterpreter(tx.resolver, tx.options, tx.state, Graph("__init__", ""))
    if module.ctor_args is not None:
        args, kwargs = module.ctor_args
        env = bind_arguments(function, module, args, kwargs, lambda e: builder.eval_static_expr(e, None))
    else:
        env = static_params(function, lambda e: assume(builder.eval_static_expr(e, None)))
        if function.args.args:
            env[function.args.args[0].name] = module
    frame = Frame(function, tx.resolver.source_of(function), env, cls=owner)
    try:
        builder.run_body(frame)
    except RecursionError:
        pass
    return module.attrs


class InitInterpreter(Interpreter):
    """Runs `__init__` to learn a module's submodules, tensors and settings.

    Nothing here is compiled: no break is raised, objects made here are not the graph's own,
    the tensors of static expressions are kept (they become the module's buffers), and only
    what builds the attributes is followed.
    """

    def graph_break(self, rule: Rule, node: Node, expr: nodes.NodeNG, frame: Frame, **details: object) -> None:
        return None

    def follows(self, function: nodes.FunctionDef | nodes.Lambda, frame: Frame) -> bool:
        """Only the `__init__` chain and helpers of the same file (`self._make_layer(...)`);
        library setup such as `self.post_init()` only costs time."""
        return getattr(function, "name", "") == "__init__" or function.root() is frame.stack()[0].function.root()

    def summary_key(self, *args: object) -> None:
        return None

    def store_module_attribute(self, module: Value, name: str, value: Value) -> None:
        """`self.name = value` in `__init__` is the module's attribute; a submodule gets its path."""
        if not isinstance(module, Module):
            return
        if isinstance(value, Module):
            value = with_path(value, join_path(module.path, name))
        if module.attrs is not None:
            module.attrs[name] = value

    def new_object(self, cls: nodes.ClassDef) -> Obj:
        obj = Obj(cls)
        self.heap.objects[id(obj)] = obj
        return obj

    def static_result(self, value: Value) -> Value:
        return value
