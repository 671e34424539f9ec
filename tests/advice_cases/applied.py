"""before.py's classes with the advice of each message applied, the advice quoted where it is
(`# advice: ...`); dynamo 2.13 breaks on none of them (tests/test_advice.py)."""
import copy
import logging
import math
import random
import warnings

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

logger = logging.getLogger(__name__)
# advice: add print to reorderable_logging_functions
torch._dynamo.config.reorderable_logging_functions.add(print)


class BranchOnTensor(nn.Module):
    def forward(self, x):
        # advice: select with torch.where or torch.cond
        x = torch.where(x.sum() > 0, x * 2, x)
        return x + 1


class RaiseOnNan(nn.Module):
    def forward(self, x):
        y = x * 2
        # advice: assert it with torch._assert_async
        torch._assert_async(~torch.isnan(y).any(), "nan in y")
        return y + 1


class ItemScale(nn.Module):
    def forward(self, x):
        # advice: keep it a 0-d tensor
        scale = x.abs().max()
        return x / scale


class ItemTested(nn.Module):
    def forward(self, x, keep):
        # advice: select with torch.where or torch.cond
        return torch.where(keep.sum() == 0, x, x * 2)


class ToList(nn.Module):
    def forward(self, x):
        # advice: keep the data in tensors
        values = x.sum(-1)
        return x * values[0]


class MathOnTensor(nn.Module):
    def forward(self, x):
        # advice: stay in tensor ops (torch.sqrt, not math.sqrt)
        norm = torch.sqrt(x.pow(2).sum())
        return x / norm


class RandomArithmetic(nn.Module):
    def forward(self, x):
        # advice: draw it with torch.rand or torch.randint
        k = torch.randint(1, 4, ()) * 2
        return x * k


class PrintShape(nn.Module):
    def forward(self, x):
        x = x * 2
        # advice: guard it with torch.compiler.is_compiling()
        if not torch.compiler.is_compiling():
            print(x.shape)
        return x + 1


class PrintReorderable(nn.Module):
    def forward(self, x):
        x = x * 2
        print("x is", x)  # reordered: see the module's top
        return x + 1


class RangeOfTensor(nn.Module):
    def forward(self, x):
        # advice: loop over a shape or a Python int
        for i in range(x.shape[0]):
            x = x + i
        return x


class LoggerCall(nn.Module):
    def forward(self, x):
        x = x * 2
        # advice: guard it with torch.compiler.is_compiling()
        if not torch.compiler.is_compiling():
            logger.info("hidden %s", x.shape)
        return x + 1


class WarnInForward(nn.Module):
    def __init__(self):
        super().__init__()
        # advice: move it out of the compiled code
        warnings.warn("slow path")

    def forward(self, x):
        x = x * 2
        return x + 1


class ExplicitBreak(nn.Module):
    def forward(self, x):
        x = x * 2
        # advice: remove it if the break is no longer needed
        return x + 1


def _post(t):
    return t + 1


class DisabledCall(nn.Module):
    def forward(self, x):
        x = x * 2
        # advice: call it outside the compiled code (the caller applies _post to the output)
        return x * 3


class BackwardInForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        y = self.fc(x)
        # advice: compute gradients outside the compiled code
        return y * 2


class RequiresGradInForward(nn.Module):
    def forward(self, x):
        # advice: set it before the compiled call (make_inputs does)
        return x * 2


class DeepCopyInForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        # advice: make the copy in __init__
        self.shadow = copy.deepcopy(self.fc)

    def forward(self, x):
        return self.shadow(x) + self.fc(x)


class RecurrentModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(4, 4)

    def forward(self, x):
        # advice: unroll with GRUCell/LSTMCell, or keep it uncompiled
        h = x.new_zeros(x.shape[0], 4)
        outs = []
        for t in range(x.shape[1]):
            h = self.cell(x[:, t], h)
            outs.append(h)
        return torch.stack(outs, 1) * 2


class SortedOverTensor(nn.Module):
    def forward(self, x: torch.Tensor):
        # advice: use torch.sort or torch.topk
        order = torch.sort(x[0]).values
        return x * order[0]


class ForkRng(nn.Module):
    def forward(self, x):
        # advice: enter it outside the compiled code
        x = x * 2
        return x + 1


class GeneratorInForward(nn.Module):
    def __init__(self):
        super().__init__()
        # advice: create it outside the compiled code (the noise too: the generator cannot be an argument)
        self.register_buffer("noise", torch.randn(4, generator=torch.Generator().manual_seed(0)))

    def forward(self, x):
        return x + self.noise


class _Running:
    def __init__(self, x):
        self.total = x.sum()

    def count(self):
        print(self.total)
        return self.total


class LocalObject(nn.Module):
    def forward(self, x):
        # advice: make the object in __init__ (it keeps no state of the call: its total is computed here)
        return x / x.sum()


class _Scale:
    factor = 0.5


class ClassInForward(nn.Module):
    def forward(self, x):
        # advice: define the class at module level
        return x * _Scale.factor


class SparseTensor(nn.Module):
    def forward(self, x):
        # advice: keep it dense, or use it outside the compiled code
        return x * x


def _remember(t):
    return t * 2, t


class CheckpointSideEffect(nn.Module):
    def forward(self, x):
        x = x * 2
        # advice: return the value instead of storing it
        x, seen = checkpoint(_remember, x, use_reentrant=False)
        return x + 1


class MaxWithKey(nn.Module):
    def forward(self, x):
        # advice: stack, then index_select the argmax()
        candidates = torch.stack([x, x * 2])
        x = candidates.index_select(0, candidates.mean(dim=(1, 2)).argmax().reshape(1))[0]
        return x + 1


class DynamicShape(nn.Module):
    def forward(self, x):
        # advice: use masked_fill/torch.where or nonzero_static
        count = torch.where(x > 0, 1, 0).sum()
        return x.sum() * count


class CausalMaskCheck(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    def forward(self, x):
        return self.encode(x)

    def encode(self, x):
        mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1])
        # advice: pass is_causal=True or False with the mask
        return self.encoder(x, mask=mask, is_causal=True)


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
    ("RequiresGradInForward", RequiresGradInForward, lambda: (torch.randn(2, 4).requires_grad_(),)),
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
