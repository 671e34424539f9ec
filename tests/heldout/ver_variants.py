"""Held out: variants of the constructs whose behaviour moved between torch 2.13, 2.14 and
2.15, written after the linter's rules for them and never used to tune them (see
docs/torch-versions.md)."""
import contextvars
import copy
import random
from collections import namedtuple

import torch
import torch.nn as nn

Config = namedtuple("Config", "scale shift")
MODE = contextvars.ContextVar("mode")


class CopiedConfig(nn.Module):
    def forward(self, x):
        config = copy.deepcopy(Config(2.0, 1.0))
        return x * config.scale + config.shift


class ContextWithDefault(nn.Module):
    def forward(self, x):
        return x * MODE.get(3.0)


class DeviceScale(nn.Module):
    def forward(self, x):
        scale = 2.0 if torch.mps.is_available() else 1.0
        return x * scale


class CheapestHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.costs = [5, 2, 7]
        self.heads = nn.ModuleList(nn.Linear(4, 4) for _ in self.costs)

    def forward(self, x):
        return self.heads[min(range(len(self.costs)), key=self.costs.__getitem__)](x)


def _keep(p):
    return random.random() > p


class DropPathHelper(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, x):
        if _keep(self.p):
            x = x * 2
        return x + 1


class DisabledMethod(nn.Module):
    def _stats(self, t):
        return t - t.mean()

    def forward(self, x):
        y = x.sigmoid()
        return torch._dynamo.disable(self._stats)(y) * 3


class SmallestNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 4)

    def forward(self, x):
        return min([self.a(x), self.b(x)], key=lambda t: t.norm()) + 1


class _BaseMeta(type):
    def __instancecheck__(cls, obj):
        return hasattr(obj, "shape") and len(obj.shape) == cls.rank


class _RankMeta(_BaseMeta):
    pass


class Rank3(metaclass=_RankMeta):
    rank = 3


def _flatten_if_rank3(x):
    if isinstance(x, Rank3):
        return x.flatten(1)
    return x


class RankDispatch(nn.Module):
    def forward(self, x):
        return _flatten_if_rank3(x) * 2


class AbsMax(nn.Module):
    def forward(self, x):
        return x * max([-3.0, 2.0, 1.0], key=abs)


CASES = [
    ("CopiedConfig", CopiedConfig, lambda: (torch.randn(2, 4),)),
    ("ContextWithDefault", ContextWithDefault, lambda: (torch.randn(2, 4),)),
    ("DeviceScale", DeviceScale, lambda: (torch.randn(2, 4),)),
    ("CheapestHead", CheapestHead, lambda: (torch.randn(2, 4),)),
    ("DropPathHelper", DropPathHelper, lambda: (torch.randn(2, 4),)),
    ("DisabledMethod", DisabledMethod, lambda: (torch.randn(2, 4),)),
    ("SmallestNorm", SmallestNorm, lambda: (torch.randn(2, 4),)),
    ("RankDispatch", RankDispatch, lambda: (torch.randn(2, 3, 4),)),
    ("AbsMax", AbsMax, lambda: (torch.randn(2, 4),)),
]
