"""Compiled functions the file's own calls pass a zip, an enumerate or a dict view: dynamo wraps
each as an object it cannot step, and breaks where the function iterates it (a `for` or a
comprehension gives up on the whole function; `list()` splits the graph), also when another
call passes a list. Near misses: a tuple of the items, an iterator only tested for None, and an
object's own `items()` that returns a list. The drivers (run_*) are the file's calls; each case
makes the same call from eager code, as a script does (a compiled driver would build the
iterator inside the graph)."""
import torch


@torch.compile(backend="eager")
def weighted_sum(pairs, x):
    for weight, t in pairs:
        x = x + weight * t
    return x


@torch.compile(backend="eager")
def indexed_sum(items, x):
    for i, t in items:
        x = x + t * i
    return x


@torch.compile(backend="eager")
def named_sum(entries, x):
    for name, t in entries:
        x = x + t
    return x


@torch.compile(backend="eager")
def listed_sum(pairs, x):
    x = x * 2
    total = list(pairs)
    return x + total[0][1]


@torch.compile(backend="eager")
def tuple_sum(pairs, x):
    for weight, t in pairs:
        x = x + weight * t
    return x


@torch.compile(backend="eager")
def untouched(pairs, x):
    if pairs is None:
        return x
    return x + 1


@torch.compile(backend="eager")
def mixed_sum(pairs, x):
    for weight, t in pairs:
        x = x + weight * t
    return x


@torch.compile(backend="eager")
def comprehended_sum(entries, x):
    return x + sum([t for name, t in entries])


class Registry:
    def __init__(self, x):
        self.entries = [("a", x)]

    def items(self):
        return list(self.entries)


@torch.compile(backend="eager")
def registry_sum(entries, x):
    for name, t in entries:
        x = x + t
    return x


def run_zip(x):
    return weighted_sum(zip([1.0, 2.0], [x, x]), x)


def run_enumerate(x):
    return indexed_sum(enumerate([x, x * 2]), x)


def run_items(x):
    parts = {"a": x, "b": x + 1}
    return named_sum(parts.items(), x)


def run_listed(x):
    return listed_sum(zip([1.0], [x]), x)


def run_tuple(x):
    return tuple_sum(tuple(zip([1.0, 2.0], [x, x])), x)


def run_untouched(x):
    return untouched(zip([1.0], [x]), x)


def run_mixed(x):
    return mixed_sum(zip([1.0], [x]), x) + mixed_sum([(2.0, x)], x)


def run_comprehended(x):
    parts = {"a": x, "b": x + 1}
    return comprehended_sum(parts.items(), x)


def run_registry(x):
    return registry_sum(Registry(x).items(), x)


X = torch.randn(4)
CASES = [
    ("weighted_sum", lambda: weighted_sum, lambda: (zip([1.0, 2.0], [X, X]), X)),
    ("indexed_sum", lambda: indexed_sum, lambda: (enumerate([X, X * 2]), X)),
    ("named_sum", lambda: named_sum, lambda: ({"a": X, "b": X + 1}.items(), X)),
    ("listed_sum", lambda: listed_sum, lambda: (zip([1.0], [X]), X)),
    ("tuple_sum", lambda: tuple_sum, lambda: (tuple(zip([1.0, 2.0], [X, X])), X)),
    ("untouched", lambda: untouched, lambda: (zip([1.0], [X]), X)),
    ("mixed_sum", lambda: mixed_sum, lambda: (zip([1.0], [X]), X)),
    ("mixed_sum_list", lambda: mixed_sum, lambda: ([(2.0, X)], X)),
    ("comprehended_sum", lambda: comprehended_sum, lambda: ({"a": X, "b": X + 1}.items(), X)),
    ("registry_sum", lambda: registry_sum, lambda: (Registry(X).items(), X)),
]
