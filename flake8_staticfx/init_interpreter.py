"""Interpreting a module's `__init__`: what its attributes are, not what dynamo compiles."""
from __future__ import annotations

from astroid import nodes

from .inline import Frame
from .interpreter import Interpreter
from .ir import Node
from .rules import Rule
from .values import Module, Obj, Value, join_path, with_path


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
        self._objects[id(obj)] = obj
        return obj

    def static_result(self, value: Value) -> Value:
        return value
