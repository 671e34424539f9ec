"""Descriptions of the values a driver handles: enough to tell two calls' arguments apart the
way dynamo's guards do, and nothing more. A value the replay cannot describe is UNKNOWN, and a
call with an UNKNOWN argument makes no prediction for what that argument feeds."""
from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace


class Unknown:
    """A value the replay does not follow."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = Unknown()


@dataclass(eq=False, repr=False)
class Unfollowed(Unknown):
    """What a driver statement the replay did not follow bound (a config a library made): unknown,
    but for the attributes the driver writes on it afterwards (`config.n_layer = 2`), until
    something not followed may change it (unfollowed.py)."""

    attributes: dict = field(default_factory=dict)

    def forget(self) -> None:
        """Something not followed had it: what was written on it, or on an object it holds, is no
        longer known."""
        held = [value for value in self.attributes.values() if isinstance(value, Unfollowed)]
        self.attributes.clear()
        for value in held:
            value.forget()


@dataclass(frozen=True)
class Const:
    """A Python number, string, bool or None: dynamo compares it by value."""

    value: object


@dataclass(frozen=True)
class Function:
    """A function named in the code (F.relu): dynamo guards on the object."""

    name: str


@dataclass(frozen=True)
class Lambda:
    """A lambda: a fresh object at every evaluation, but dynamo guards on its code, which is
    the same each time (measured: no recompile)."""

    line: int
    col: int
    node: ast.Lambda | None = field(default=None, compare=False)  # what calling it runs
    env: dict | None = field(default=None, compare=False)  # the names it sees


class UnknownSize:
    """A tensor dimension of a size the replay does not know (F.interpolate by a scale factor):
    the tensor's rank is known, what a guard on its sizes reads is not."""

    def __repr__(self) -> str:
        return "UNKNOWN_SIZE"


UNKNOWN_SIZE = UnknownSize()


@dataclass(eq=False)
class TensorValue:
    """A tensor: its shape (None: not known) and whether it requires grad (None: not known)."""

    shape: tuple | None
    requires_grad: bool | None = False
    value: object = None  # a 0-d tensor's number, when torch.tensor(n) made it
    data_sized: bool = False  # its size depends on the data (nonzero): an index picking rows
    dynamic_dims: set[int] = field(default_factory=set)  # torch._dynamo.mark_dynamic
    inference: bool = False  # made under torch.inference_mode(): other dispatch keys, guarded
    view: bool = False  # `x[:, -1]`: its base's strides, guarded
    below: int | None = None  # its values lie in [0, below): torch.randint(below, size)
    strides: tuple | None = None  # a view's strides, where followed (None: a fresh tensor's, or not known)

    def guard_shape(self) -> tuple | None:
        """The sizes a guard reads (None: a size marked dynamic); None where they are not known."""
        if self.shape is None or UNKNOWN_SIZE in self.shape or self.view and (
                self.strides is None or self.dynamic_dims):
            return None
        return tuple(None if dim in self.dynamic_dims else size for dim, size in enumerate(self.shape))

    def write(self, written: bool | None, grad_enabled: bool) -> None:
        """`x[i] = value`, `x[i] *= value`, `written` whether the value requires grad: its shape
        stays; under grad mode it requires grad from then on where the value does (not known
        where the value may)."""
        if grad_enabled and self.requires_grad is not True and written is not False:
            self.requires_grad = written

    def guard_strides(self) -> tuple:
        """Per dimension, "contiguous" where the stride is a fresh tensor's of this shape (dynamo
        ties it to the sizes), else the stride itself (a crop's: its base's, guarded by value)."""
        if self.strides is None:
            return ("contiguous",) * len(self.shape)
        fresh = [1]
        for size in reversed(self.shape[1:]):
            fresh.insert(0, fresh[0] * size)
        return tuple("contiguous" if stride == expected else stride for stride, expected in zip(self.strides, fresh))


@dataclass(frozen=True)
class SizesNotFollowed:
    """`x.shape` of a tensor whose shape the replay does not follow: each size a Number, how
    many not known (`b, c, h, w = x.shape` gives four)."""


@dataclass(eq=False)
class Opaque:
    """An attribute `__init__` set in a way the replay does not follow: the same object at every
    call on that instance, of which nothing else is known (whether it is a module with
    parameters or with dropout, what another instance holds)."""

    statement_line: int


@dataclass(eq=False)
class Layer:
    """A torch.nn layer (nn.Linear, nn.Dropout, ...), known by its class name, and the numbers
    it was built with (None where not known): an nn.Linear's output width."""

    name: str
    sizes: tuple = ()
    options: dict = field(default_factory=dict)  # its keyword numbers: padding=1

    @property
    def reads_training(self) -> bool:
        return self.name in TRAINING_DEPENDENT_LAYERS


TRAINING_DEPENDENT_LAYERS = frozenset({
    "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "BatchNorm1d", "BatchNorm2d",
    "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"})


@dataclass(eq=False)
class ListValue:
    items: list


@dataclass(eq=False)
class DictValue:
    """A dict literal: its keys (the guards check which keys there are, not their order)."""

    items: dict


@dataclass(frozen=True)
class Number:
    """A Python number the replay does not know: a branch on data picked it (k-diffusion's churn,
    `gamma = ... if s_tmin <= sigma <= s_tmax else 0.`). Arithmetic keeps it a number, a test on
    it runs both branches, and a frame it is passed to claims nothing for it."""


@dataclass(eq=False)
class Optimizer:
    """A torch.optim optimizer, or a part of one (`param_groups`, a group, a setting): it holds
    the parameters' values and its own settings, which no guard of a compiled model reads
    (dynamo does not guard parameter values; measured, realcode/nanogpt_train.py: the
    learning rate written each iteration recompiles nothing)."""


@dataclass(eq=False)
class Parameters:
    """`module.parameters()`: tensors that require grad, how many not known (`next(...)` gives one:
    word_language_model's `weight = next(self.parameters())`, whose `new_zeros` has known sizes)."""


@dataclass(eq=False)
class Record:
    """An instance of a namedtuple of the linted file: its fields by name, in order."""

    fields: dict


@dataclass(eq=False)
class TensorRows:
    """`torch.utils.data.TensorDataset(images, labels)` of tensors of a known first dimension: as
    many rows as that (the other sizes possibly not known: realcode5/super_resolution.py's inputs
    downscaled by F.interpolate)."""

    tensors: list  # TensorValue, each with a known shape
    length: int


@dataclass(eq=False)
class Batches:
    """A `DataLoader` over a TensorRows: batches of `batch_size` rows, shuffled or not (shapes
    are all a guard reads), the last one smaller unless dropped (measured: realcode4/vae_mnist.py,
    200 rows in batches of 32 end with a batch of 8, which recompiles once with a dynamic batch)."""

    dataset: TensorRows
    batch_size: int
    drop_last: bool

    def items(self) -> list:
        """Each batch, as the list of its tensors the default collate makes: fresh tensors."""
        full, rest = divmod(self.dataset.length, self.batch_size)
        sizes = [self.batch_size] * full + ([rest] if rest and not self.drop_last else [])
        return [ListValue([TensorValue((size, *tensor.shape[1:])) for tensor in self.dataset.tensors])
                for size in sizes]


@dataclass(eq=False)
class Categorical:
    """`torch.distributions.Categorical(probs)` of a tensor: a sample has the batch's shape (the
    probabilities' but the last dimension) and never requires grad; its log_prob does as the
    probabilities do (the policy gradient of pytorch/examples' reinforce)."""

    batch: tuple | None
    requires_grad: bool | None

    def sample(self) -> TensorValue:
        return TensorValue(self.batch, False)

    def log_prob(self, grad_enabled: bool) -> TensorValue:
        return TensorValue(self.batch, grad_enabled and self.requires_grad)


@dataclass(eq=False)
class ModuleDict:
    """An nn.ModuleDict: its modules by name, read as attributes (`self.transformer.wte`)."""

    items: dict


def members(value) -> list:
    """The modules a container holds, nested lists and ModuleDicts flattened; a value itself
    otherwise."""
    if isinstance(value, ListValue):
        return [member for item in value.items for member in members(item)]
    if isinstance(value, ModuleDict):
        return [member for item in value.items.values() for member in members(item)]
    return [value]


@dataclass(eq=False)
class Instance:
    """An object of a class of the linted file (a model or a block): its attributes as its
    `__init__` set them, changed by the driver between calls."""

    cls: ast.ClassDef
    attributes: dict[str, object]
    training: bool = True
    compiled: bool = False  # nn.Module.compile() or torch.compile in place of it in a container
    dynamic: bool | None = None
    compile_line: int = 0

    def layers(self) -> list:
        """Its submodules, nested in lists and ModuleDicts, one level of project blocks deep."""
        found = []
        for value in self.attributes.values():
            found.extend(item for item in members(value) if isinstance(item, (Layer, Instance)))
        return found

    def set_training(self, mode: bool, seen: set | None = None) -> None:
        """`eval()` / `train()`: the flag set on the module and on every project module it holds,
        as nn.Module.train does (a block compiled on its own guards its own `training`)."""
        seen = set() if seen is None else seen
        seen.add(id(self))
        self.training = mode
        for layer in self.layers():
            if isinstance(layer, Instance) and id(layer) not in seen:
                layer.set_training(mode, seen)

    def training_attributes(self) -> frozenset[str]:
        """The attributes holding a layer that reads `training` (dropout, batch norm), directly,
        in a list or Sequential, or inside a project block."""
        def reads(value) -> bool:
            return any(isinstance(item, Layer) and item.reads_training
                       or isinstance(item, Instance) and item.training_attributes() for item in members(value))
        return frozenset(name for name, value in self.attributes.items() if reads(value))

    def has_opaque(self) -> bool:
        """An attribute, here or in a project block it holds, that the replay did not follow."""
        return any(isinstance(value, (Opaque, Unfollowed)) for value in self.attributes.values()) or any(
            isinstance(layer, Instance) and layer.has_opaque() for layer in self.layers())

    def has_parameters(self) -> bool:
        return any(isinstance(layer, Layer) or layer.has_parameters() for layer in self.layers()) or any(
            isinstance(value, TensorValue) and value.requires_grad for value in self.attributes.values())


@dataclass(eq=False)
class Compiled:
    """What torch.compile returned: a compiled instance's forward or a compiled function."""

    target: Instance | ast.FunctionDef
    dynamic: bool | None
    line: int


def numeric(value) -> bool:
    return isinstance(value, Number) or isinstance(value, Const) and type(value.value) in (int, float, bool)


def joined(taken: dict, skipped: dict) -> dict:
    """The names after either branch: a value both leave alike kept, a number either way a
    Number, anything else UNKNOWN."""
    names = {}
    for name in taken.keys() | skipped.keys():
        one, other = taken.get(name, UNKNOWN), skipped.get(name, UNKNOWN)
        if one is other or isinstance(one, Const) and isinstance(other, Const) and one == other:
            names[name] = one
        elif numeric(one) and numeric(other):
            names[name] = Number()
        elif isinstance(one, Unfollowed) and isinstance(other, Unfollowed):
            names[name] = Unfollowed()  # made by statements not followed either way
        elif isinstance(one, TensorValue) and isinstance(other, TensorValue) and one.shape is not None and all(
                getattr(one, f) == getattr(other, f) for f in ("shape", "requires_grad", "data_sized", "dynamic_dims",
                                                                "inference", "view", "strides", "below")):
            names[name] = replace(one, value=None, dynamic_dims=set(one.dynamic_dims))
        else:
            names[name] = UNKNOWN
    return names
