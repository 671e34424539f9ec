"""Heads built per call through a registry metaclass whose ``__call__`` defers to ``type``."""
import torch
import torch.nn as nn

CREATED = []


class Registered(type):
    """Counts every instance its classes create."""

    def __call__(cls, *args, **kwargs):
        CREATED.append(cls.__name__)
        return super().__call__(*args, **kwargs)


class ScaleRule(metaclass=Registered):
    def __init__(self, scale):
        self.scale = scale

    def apply(self, x):
        return x * self.scale


class CheckedScaleRule(metaclass=Registered):
    def __init__(self, scale):
        if scale.min() <= 0:
            raise ValueError("scale must be positive")
        self.scale = scale

    def apply(self, x):
        return x * self.scale


class UnregisteredScaleRule:
    def __init__(self, scale):
        if scale.min() <= 0:
            raise ValueError("scale must be positive")
        self.scale = scale

    def apply(self, x):
        return x * self.scale


class PrintedScaleRule(metaclass=Registered):
    def __init__(self, scale):
        print("new rule", scale.shape)
        self.scale = scale

    def apply(self, x):
        return x * self.scale


class RegisteredGate(nn.Module, metaclass=type("RegisteredModule", (Registered, type(nn.Module)), {})):
    def __init__(self, width):
        super().__init__()
        self.width = width

    def forward(self, x):
        return x[..., : self.width]


class ScaleRuleHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(4))

    def forward(self, x):
        return ScaleRule(self.scale).apply(x)


class CheckedScaleRuleHead(ScaleRuleHead):
    def forward(self, x):
        return CheckedScaleRule(self.scale).apply(x)


class UnregisteredScaleRuleHead(ScaleRuleHead):
    def forward(self, x):
        return UnregisteredScaleRule(self.scale).apply(x)


class PrintedScaleRuleHead(ScaleRuleHead):
    def forward(self, x):
        return PrintedScaleRule(self.scale).apply(x)


class GateHead(nn.Module):
    def forward(self, x):
        return RegisteredGate(2)(x).relu()


CASES = [
    ("ScaleRuleHead", lambda: ScaleRuleHead(), lambda: (torch.randn(3, 4),)),
    ("CheckedScaleRuleHead", lambda: CheckedScaleRuleHead(), lambda: (torch.randn(3, 4),)),
    ("UnregisteredScaleRuleHead", lambda: UnregisteredScaleRuleHead(), lambda: (torch.randn(3, 4),)),
    ("PrintedScaleRuleHead", lambda: PrintedScaleRuleHead(), lambda: (torch.randn(3, 4),)),
    ("GateHead", lambda: GateHead(), lambda: (torch.randn(3, 4),)),
]
