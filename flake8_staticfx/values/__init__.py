"""Abstract values, one class per kind, each owning its behaviour (see `base.Value`).

- `base`: Value, Unknown; `static`: static Python values; `tensors`: tensors, numpy arrays;
- `containers`: tuples, lists, dicts; `modules`: leaf, user and container modules;
- `objects`: functions, bound methods, classes, project objects, super();
- `externals`: names from outside the project; `builtins`: Python's builtins;
- `distributions`: what torch.distributions' methods run on subclasses (transforms' hooks);
- `joins`: what a variable is after two paths merge; `folding`: bounded constant folding;
- `flags`: module attributes `__init__` chose by one of the module's own flags.
- `operators`: Python's operators, which dispatch on the kinds of their two operands.
"""
from .base import NOTHING, UNKNOWN, Unknown, Value, as_args, as_kwargs, holds_object, signature_of
from .builtins import Builtin
from .containers import Dict, Seq
from .externals import External, Instance, external, opaque_call
from .folding import MAX_FOLDED_SIZE, fold, printable
from .joins import join, join_all, join_attributes
from .modules import ContainerModule, LeafModule, Module, UserModule, is_module, join_path, with_path
from .objects import BoundMethod, ClassRef, Function, Obj, Partial, Super
from .static import FORMATTED_TYPES, EnumMember, Static, assume, assumed_truth, derived
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
    "Builtin", "Dict", "Seq", "External", "Instance", "external", "opaque_call", "MAX_FOLDED_SIZE", "fold",
    "printable", "join", "join_all", "join_attributes",
    "ContainerModule", "LeafModule", "Module", "UserModule", "is_module",
    "join_path", "with_path", "BoundMethod", "ClassRef", "Function", "Obj", "Partial", "Super", "EnumMember", "Static",
    "FORMATTED_TYPES", "assume", "assumed_truth", "derived",
    "NdArray", "Tensor", "TensorSlice", "all_scalar", "has_bool_mask",
    "is_definite_tensor", "needs_grad_from", "only_weak",
]
