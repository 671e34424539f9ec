"""One class per rule (and per form of a construct with advice of its own) that dynamo 2.13
breaks on once; applied.py holds the same classes with the advice of each message applied
(tests/test_advice.py)."""
import copy
import logging
import math
import random
import warnings

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

logger = logging.getLogger(__name__)


class BranchOnTensor(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            x = x * 2
        return x + 1


class RaiseOnNan(nn.Module):
    def forward(self, x):
        y = x * 2
        if torch.isnan(y).any():
            raise ValueError("nan in y")
        return y + 1


class ItemScale(nn.Module):
    def forward(self, x):
        scale = x.abs().max().item()
        return x / scale


class ItemTested(nn.Module):
    def forward(self, x, keep):
        if keep.sum().item() == 0:
            return x
        return x * 2


class ToList(nn.Module):
    def forward(self, x):
        values = x.sum(-1).tolist()
        return x * values[0]


class MathOnTensor(nn.Module):
    def forward(self, x):
        norm = math.sqrt(x.pow(2).sum())
        return x / norm


class RandomArithmetic(nn.Module):
    def forward(self, x):
        k = random.randint(1, 4) * 2
        return x * k


class PrintShape(nn.Module):
    def forward(self, x):
        x = x * 2
        print(x.shape)
        return x + 1


class PrintReorderable(nn.Module):
    def forward(self, x):
        x = x * 2
        print("x is", x)
        return x + 1


class RangeOfTensor(nn.Module):
    def forward(self, x):
        for i in range(x.abs().sum().long()):
            x = x + i
        return x


class LoggerCall(nn.Module):
    def forward(self, x):
        x = x * 2
        logger.info("hidden %s", x.shape)
        return x + 1


class WarnInForward(nn.Module):
    def forward(self, x):
        x = x * 2
        warnings.warn("slow path")
        return x + 1


class ExplicitBreak(nn.Module):
    def forward(self, x):
        x = x * 2
        torch._dynamo.graph_break()
        return x + 1


@torch.compiler.disable
def _post(t):
    return t + 1


class DisabledCall(nn.Module):
    def forward(self, x):
        x = x * 2
        x = _post(x)
        return x * 3


class BackwardInForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        y = self.fc(x)
        y.sum().backward()
        return y * 2


class RequiresGradInForward(nn.Module):
    def forward(self, x):
        x.requires_grad_()
        return x * 2


class DeepCopyInForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        shadow = copy.deepcopy(self.fc)
        return shadow(x) + self.fc(x)


class RecurrentModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(4, 4, batch_first=True)

    def forward(self, x):
        out, _ = self.rnn(x)
        return out * 2


class SortedOverTensor(nn.Module):
    def forward(self, x: torch.Tensor):
        order = sorted(x[0])
        return x * order[0]


class ForkRng(nn.Module):
    def forward(self, x):
        with torch.random.fork_rng():
            x = x * 2
        return x + 1


class GeneratorInForward(nn.Module):
    def forward(self, x):
        g = torch.Generator().manual_seed(0)
        return x + torch.randn(4, generator=g)


class _Running:
    def __init__(self, x):
        self.total = x.sum()

    def count(self):
        print(self.total)
        return self.total


class LocalObject(nn.Module):
    def forward(self, x):
        stats = _Running(x)
        return x / stats.count()


class ClassInForward(nn.Module):
    def forward(self, x):
        class Scale:
            factor = 0.5
        return x * Scale.factor


class SparseTensor(nn.Module):
    def forward(self, x):
        mask = x.to_sparse()
        return mask.to_dense() * x


_seen = []


def _remember(t):
    _seen.append(t)
    return t * 2


class CheckpointSideEffect(nn.Module):
    def forward(self, x):
        x = x * 2
        x = checkpoint(_remember, x, use_reentrant=False)
        return x + 1


class MaxWithKey(nn.Module):
    def forward(self, x):
        x = max([x, x * 2], key=lambda t: t.mean())
        return x + 1


class DynamicShape(nn.Module):
    def forward(self, x):
        idx = torch.nonzero(x > 0)
        return x.sum() * idx.shape[0]


class CausalMaskCheck(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    def forward(self, x):
        return self.encode(x)

    def encode(self, x):  # a method: dynamo's log leaves the compiled frame out of the stack
        mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1])
        return self.encoder(x, mask=mask)


CASES = [
    ("BranchOnTensor", BranchOnTensor, lambda: (torch.randn(2, 4),)),
    ("RaiseOnNan", RaiseOnNan, lambda: (torch.randn(2, 4),)),
    ("ItemScale", ItemScale, lambda: (torch.randn(2, 4),)),
    ("ItemTested", ItemTested, lambda: (torch.randn(2, 4), torch.tensor([1, 0, 1]))),
    ("ToList", ToList, lambda: (torch.randn(2, 4),)),
    ("MathOnTensor", MathOnTensor, lambda: (torch.randn(2, 4),)),
    ("RandomArithmetic", RandomArithmetic, lambda: (torch.randn(2, 4),)),
    ("PrintShape", PrintShape, lambda: (torch.randn(2, 4),)),
    ("PrintReorderable", PrintReorderable, lambda: (torch.randn(2, 4),)),
    ("RangeOfTensor", RangeOfTensor, lambda: (torch.randn(2, 4),)),
    ("LoggerCall", LoggerCall, lambda: (torch.randn(2, 4),)),
    ("WarnInForward", WarnInForward, lambda: (torch.randn(2, 4),)),
    ("ExplicitBreak", ExplicitBreak, lambda: (torch.randn(2, 4),)),
    ("DisabledCall", DisabledCall, lambda: (torch.randn(2, 4),)),
    ("BackwardInForward", BackwardInForward, lambda: (torch.randn(2, 4),)),
    ("RequiresGradInForward", RequiresGradInForward, lambda: (torch.randn(2, 4),)),
    ("DeepCopyInForward", DeepCopyInForward, lambda: (torch.randn(2, 4),)),
    ("RecurrentModule", RecurrentModule, lambda: (torch.randn(2, 3, 4),)),
    ("SortedOverTensor", SortedOverTensor, lambda: (torch.randn(2, 4),)),
    ("ForkRng", ForkRng, lambda: (torch.randn(2, 4),)),
    ("GeneratorInForward", GeneratorInForward, lambda: (torch.randn(2, 4),)),
    ("LocalObject", LocalObject, lambda: (torch.randn(2, 4),)),
    ("ClassInForward", ClassInForward, lambda: (torch.randn(2, 4),)),
    ("SparseTensor", SparseTensor, lambda: (torch.randn(2, 4),)),
    ("CheckpointSideEffect", CheckpointSideEffect, lambda: (torch.randn(2, 4),)),
    ("MaxWithKey", MaxWithKey, lambda: (torch.randn(2, 4),)),
    ("DynamicShape", DynamicShape, lambda: (torch.randn(2, 4),)),
    ("CausalMaskCheck", CausalMaskCheck, lambda: (torch.randn(2, 3, 4),)),
]
