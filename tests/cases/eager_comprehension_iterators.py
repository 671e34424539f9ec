"""A comprehension in a function dynamo gave up on (issue 34, mechanism 7): Python 3.11 runs it as a
function of its own, called with an iterator of its iterable, and once the caller runs eagerly
dynamo compiles that function as a frame of its own when it reads a tensor or module of the
caller. It cannot step the iterator of a list (`list(d.values())`, a module list), a dict or its
views, a set, zip or enumerate there (GB4347 "Missing tp_iternext" in 2.13, GB9493 from 2.14;
transformers' capture_outputs wrapper). Near misses: a tuple, a range, a tensor's rows, a list
display (Python makes it a tuple); a comprehension reading no tensor or module (dynamo skips its
frame); one after a break dynamo resumes from (the resume function inlines it)."""
import torch
import torch.nn as nn

SCALES = {"a": 1.0, "b": 2.0}


class EagerDictValues(nn.Module):
    def forward(self, x):
        for _ in range(2):
            x = x + x.sum().item()
        return [x * v for v in SCALES.values()]


class EagerDictKeys(nn.Module):
    def forward(self, x):
        for _ in range(2):
            x = x + x.sum().item()
        return {f"out_{k}": x * SCALES[k] for k in SCALES}


class EagerModuleDictItems(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleDict({"a": nn.Linear(3, 3), "b": nn.Linear(3, 3)})

    def forward(self, x):
        for _ in range(2):
            x = x + x.sum().item()
        return [head(x) for name, head in self.heads.items()]


class EagerZip(nn.Module):
    def forward(self, x):
        for _ in range(2):
            x = x + x.sum().item()
        return [x * a * b for a, b in zip([1, 2], [3, 4])]


class EagerEnumerate(nn.Module):
    def forward(self, x):
        for _ in range(2):
            x = x + x.sum().item()
        return [x * a * i for i, a in enumerate([1, 2])]


class EagerSet(nn.Module):
    def forward(self, x):
        for _ in range(2):
            x = x + x.sum().item()
        return [x * a for a in {1, 2}]


class EagerList(nn.Module):
    def forward(self, x):
        for _ in range(2):
            x = x + x.sum().item()
        return [x * a for a in [1, 2]] + [x * a for a in (3, 4)] + [x * a for a in range(2)]


class EagerListOfValues(nn.Module):
    def forward(self, x):
        for _ in range(2):
            x = x + x.sum().item()
        return [x * v for v in list(SCALES.values())]


class EagerRows(nn.Module):
    def forward(self, x):
        for _ in range(2):
            x = x + x.sum().item()
        return [x * row for row in x]


class EagerNoTensorRead(nn.Module):
    def forward(self, x):
        for _ in range(2):
            x = x + x.sum().item()
        keys = {f"out_{k}": 1 for k in SCALES}
        return x * len(keys)


class EagerTupleOfValues(nn.Module):
    def forward(self, x):
        for _ in range(2):
            x = x + x.sum().item()
        return [x * v for v in tuple(SCALES.values())]


class EagerModuleList(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(3, 3), nn.Linear(3, 3)])

    def forward(self, x):
        for _ in range(2):
            x = x + x.sum().item()
        return [layer(x) for layer in self.layers]


class BeforeTheGivingUp(nn.Module):
    def forward(self, x):
        parts = [x * v for v in SCALES.values()]
        for _ in range(2):
            x = x + x.sum().item()
        return x, parts


def warm_up(x):
    return x + x.sum().item()


class ResumedThenGivenUp(nn.Module):
    def forward(self, x):
        x = warm_up(x)
        for _ in range(2):
            x = x + x.sum().item()
        return [x * a * b for a, b in zip([1, 2], [3, 4])]


class ResumedDictValues(nn.Module):
    def forward(self, x):
        x = x + x.sum().item()
        return [x * v for v in SCALES.values()]


CASES = [
    ("EagerDictValues", EagerDictValues, lambda: (torch.randn(3),)),
    ("EagerDictKeys", EagerDictKeys, lambda: (torch.randn(3),)),
    ("EagerModuleDictItems", EagerModuleDictItems, lambda: (torch.randn(3),)),
    ("EagerZip", EagerZip, lambda: (torch.randn(3),)),
    ("EagerEnumerate", EagerEnumerate, lambda: (torch.randn(3),)),
    ("EagerSet", EagerSet, lambda: (torch.randn(3),)),
    ("EagerList", EagerList, lambda: (torch.randn(3),)),
    ("EagerListOfValues", EagerListOfValues, lambda: (torch.randn(3),)),
    ("EagerRows", EagerRows, lambda: (torch.randn(3),)),
    ("EagerNoTensorRead", EagerNoTensorRead, lambda: (torch.randn(3),)),
    ("EagerTupleOfValues", EagerTupleOfValues, lambda: (torch.randn(3),)),
    ("EagerModuleList", EagerModuleList, lambda: (torch.randn(3),)),
    ("BeforeTheGivingUp", BeforeTheGivingUp, lambda: (torch.randn(3),)),
    ("ResumedThenGivenUp", ResumedThenGivenUp, lambda: (torch.randn(3),)),
    ("ResumedDictValues", ResumedDictValues, lambda: (torch.randn(3),)),
]
