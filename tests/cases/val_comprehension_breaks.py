"""Breaks inside comprehensions, as Python 3.11 runs them: a list, set or dict comprehension is a
function of its own that dynamo inlines. After a break inside, dynamo cannot resume in its loop:
the caller's graph splits at the comprehension, which runs eagerly, once however many items
(helpers it calls compile as frames of their own). Over `enumerate()` the caller cannot be
resumed either (GB8335): it runs eagerly, as after any break inside a generator expression."""
import torch
from torch import nn


class EnumerateFilter(nn.Module):
    def forward(self, x):
        live = x.sum(-1) > 0
        keep = [i for i, m in enumerate(live) if m]
        return x[keep] * 2


class PlainFilter(nn.Module):
    def forward(self, x):
        rows = [r for r in x if r.sum() > 0]
        return torch.stack(rows) * 2


class ListFilter(nn.Module):
    def forward(self, x):
        parts = [x, x * 2, x - 1]
        rows = [r for r in parts if r.sum() > 0]
        return torch.stack(rows) * 2


class ZipFilter(nn.Module):
    def forward(self, x):
        live = x.sum(-1) > 0
        rows = [r for r, m in zip(x, live) if m]
        return torch.stack(rows) * 2


class EnumerateListFilter(nn.Module):
    def forward(self, x):
        parts = [x, x * 2, x - 1]
        keep = [i for i, p in enumerate(parts) if p.sum() > 0]
        return x * len(keep)


class EnumerateItemElement(nn.Module):
    def forward(self, x):
        x = x * 2
        vals = [v.item() + i for i, v in enumerate(x.sum(-1))]
        return x * vals[0]


class PlainItemElement(nn.Module):
    def forward(self, x):
        x = x * 2
        vals = [v.item() for v in x.sum(-1)]
        return x * vals[0]


class EnumerateLoopIf(nn.Module):
    def forward(self, x):
        x = x * 2
        live = x.sum(-1) > 0
        keep = []
        for i, m in enumerate(live):
            if m:
                keep.append(i)
        return x[keep] * 2


class RangeFilter(nn.Module):
    def forward(self, x):
        x = x * 2
        keep = [i for i in range(x.shape[0]) if x[i].sum() > 0]
        return x[keep] * 2


class GenElementItem(nn.Module):
    def forward(self, x):
        x = x * 2
        total = sum(v.item() for v in x.sum(-1))
        return x * total


class GenElementListItem(nn.Module):
    def forward(self, x):
        x = x * 2
        vals = list(v.item() for v in x.sum(-1))
        return x * vals[0]


class SetCompFilter(nn.Module):
    def forward(self, x):
        x = x * 2
        keep = {i for i in range(4) if x[i].sum() > 0}
        return x * len(keep)


class DictCompEnumerate(nn.Module):
    def forward(self, x):
        x = x * 2
        keep = {i: v.item() for i, v in enumerate(x.sum(-1))}
        return x * keep[0]


class NestedHelperBreak(nn.Module):
    def check(self, r):
        return r.sum() > 0

    def forward(self, x):
        x = x * 2
        parts = [x, x - 1]
        rows = [r for r in parts if self.check(r)]
        return torch.stack(rows) * 2


class EnumerateNoBreak(nn.Module):
    def forward(self, x):
        x = x * 2
        rows = [r * i for i, r in enumerate([x, x - 1])]
        return torch.stack(rows) * 2


def _x():
    x = torch.randn(4, 3)
    x[0] = 1.0
    return x


CASES = [
    ("EnumerateFilter", EnumerateFilter, lambda: (_x(),)),
    ("PlainFilter", PlainFilter, lambda: (_x(),)),
    ("ListFilter", ListFilter, lambda: (_x(),)),
    ("ZipFilter", ZipFilter, lambda: (_x(),)),
    ("EnumerateListFilter", EnumerateListFilter, lambda: (_x(),)),
    ("EnumerateItemElement", EnumerateItemElement, lambda: (_x(),)),
    ("PlainItemElement", PlainItemElement, lambda: (_x(),)),
    ("EnumerateLoopIf", EnumerateLoopIf, lambda: (_x(),)),
    ("RangeFilter", RangeFilter, lambda: (_x(),)),
    ("GenElementItem", GenElementItem, lambda: (_x(),)),
    ("GenElementListItem", GenElementListItem, lambda: (_x(),)),
    ("SetCompFilter", SetCompFilter, lambda: (_x(),)),
    ("DictCompEnumerate", DictCompEnumerate, lambda: (_x(),)),
    ("NestedHelperBreak", NestedHelperBreak, lambda: (_x(),)),
    ("EnumerateNoBreak", EnumerateNoBreak, lambda: (_x(),)),
]
