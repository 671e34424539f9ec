"""Blocks reached the ways real code reaches them: by name, by default argument, through
functools.partial, an overridden __call__, a template method."""
import functools

import torch
import torch.nn as nn


def scaled_gelu(x):
    scale = x.abs().max().item()
    return torch.nn.functional.gelu(x) / (scale + 1.0)


class GatedBlock(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        gate = torch.sigmoid(self.fc(x))
        return x * gate


class CountingBlock(nn.Module):
    """Overrides __call__ to count calls in Python: dynamo inlines the override."""

    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.calls = 0

    def __call__(self, x):
        out = self.fc(x)
        if out.mean() > 0:
            out = out * 2
        return out


BLOCK_TYPES = {"gated": GatedBlock, "counting": CountingBlock}


class RegistryEncoder(nn.Module):
    """Picks its block class from a registry by name."""

    def __init__(self, block="counting", depth=2, dim=8):
        super().__init__()
        block_cls = BLOCK_TYPES[block]
        self.blocks = nn.ModuleList([block_cls(dim) for _ in range(depth)])

    def forward(self, x):
        for blk in self.blocks:
            x = blk(x)
        return x


class ActivationMLP(nn.Module):
    """Takes its activation function as a constructor argument."""

    def __init__(self, dim=8, act=scaled_gelu):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.act = act

    def forward(self, x):
        return self.act(self.fc(x))


class PartialActivationMLP(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.act = functools.partial(torch.clamp, min=-1.0)

    def forward(self, x):
        return self.act(self.fc(x))


class BlockClassStack(nn.Module):
    """Takes the block class as an argument, as torchvision's ResNet takes `block`."""

    def __init__(self, block=GatedBlock, depth=2, dim=8):
        super().__init__()
        self.layers = nn.Sequential(*[block(dim) for _ in range(depth)])

    def forward(self, x):
        return self.layers(x)


class PoolingBase(nn.Module):
    def forward(self, x):
        return self.pool(x)

    def pool(self, x):
        return x.mean(1)


class TopValuePooling(PoolingBase):
    """A template method: the base class's forward calls the subclass's override."""

    def pool(self, x):
        top = x.max(1).values
        if top.sum() > 0:
            return top
        return x.mean(1)


CASES = [
    ("RegistryEncoder", RegistryEncoder, lambda: (torch.randn(2, 8),)),
    ("ActivationMLP", ActivationMLP, lambda: (torch.randn(2, 8),)),
    ("PartialActivationMLP", PartialActivationMLP, lambda: (torch.randn(2, 8),)),
    ("BlockClassStack", BlockClassStack, lambda: (torch.randn(2, 8),)),
    ("TopValuePooling", TopValuePooling, lambda: (torch.randn(2, 8),)),
]
