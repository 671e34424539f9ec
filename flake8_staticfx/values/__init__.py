"""Abstract values, one class per kind, each owning its behaviour (see `base.Value`).

- `base`: Value, Unknown; `joins`: what a variable is after two paths merge (each kind's
  `joined`); `folding`: bounded constant folding; `functions`: functions, bound methods, partials;
- `static`: static Python values; `containers`: tuples, lists, dicts; `tensors`: tensors, numpy arrays;
- `flags`: module attributes `__init__` chose by one of the module's own flags;
- `distributions`: what torch.distributions' methods run on subclasses (transforms' hooks);
- `modules`: torch.nn layers and containers; `objects`: the project's classes, objects, modules, super();
- `externals`: names from outside the project; `builtins`: Python's builtins;
- `operators`: Python's operators, which dispatch on the kinds of their two operands.

Each module imports only the ones before it in this list, so the kinds make one another without
an import circle: what a kind needs to know of a later one is that kind's method (`joined`,
`is_none`, `instance_of`), called on the value it has.
"""
from .base import NOTHING, UNKNOWN, Unknown, Value, as_args, as_kwargs, holds_object, signature_of
from .builtins import Builtin, external
from .containers import Dict, PassedIterator, Seq, assume
from .externals import External, Instance, opaque_call
from .folding import MAX_FOLDED_SIZE, fold, printable
from .joins import join, join_all, join_attributes
from .modules import ContainerModule, LeafModule, Module, is_module, join_path, with_path
from .functions import BoundMethod, Function, Partial
from .objects import ClassRef, Obj, Super, UserModule
from .static import FORMATTED_TYPES, EnumMember, Static, assumed_truth, derived, setting
from .tensors import (
    NdArray,
    Tensor,
    TensorSlice,
    all_scalar,
    has_bool_mask,
    is_definite_tensor,
    needs_grad_from,
    only_weak,
)

__all__ = [
    "NOTHING", "UNKNOWN", "Unknown", "Value", "as_args", "as_kwargs", "holds_object", "signature_of",
    "Builtin", "Dict", "PassedIterator", "Seq", "External", "Instance", "external", "opaque_call", "MAX_FOLDED_SIZE", "fold",
    "printable", "join", "join_all", "join_attributes",
    "ContainerModule", "LeafModule", "Module", "UserModule", "is_module",
    "join_path", "with_path", "BoundMethod", "ClassRef", "Function", "Obj", "Partial", "Super", "EnumMember", "Static",
    "FORMATTED_TYPES", "assume", "assumed_truth", "derived", "setting",
    "NdArray", "Tensor", "TensorSlice", "all_scalar", "has_bool_mask",
    "is_definite_tensor", "needs_grad_from", "only_weak",
]
