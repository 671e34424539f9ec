"""Context managers handed to forward by the caller: a nullcontext placeholder, a no_grad
object and an autocast object, entered with `with ctx:` inside the model."""
import contextlib

import torch
import torch.nn as nn


class FrozenStem(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.stem = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, 2)

    def forward(self, x: torch.Tensor, stem_context) -> torch.Tensor:
        with stem_context:
            h = self.stem(x).relu()
        return self.head(h)


class PrecisionScoped(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, precision=None) -> torch.Tensor:
        ctx = precision if precision is not None else contextlib.nullcontext()
        with ctx:
            h = self.fc(x)
        return h.float()


CASES = [
    ("FrozenStem-nullcontext", FrozenStem, lambda: (torch.randn(2, 8), contextlib.nullcontext())),
    ("FrozenStem-no_grad", FrozenStem, lambda: (torch.randn(2, 8), torch.no_grad())),
    ("PrecisionScoped-autocast", PrecisionScoped,
     lambda: (torch.randn(2, 8), torch.autocast("cpu", dtype=torch.bfloat16))),
    ("PrecisionScoped-default", PrecisionScoped, lambda: (torch.randn(2, 8),)),
]
