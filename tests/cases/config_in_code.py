"""A training script that turns on scalar capture for the whole module, as the docs suggest."""
import torch
import torch.nn as nn

torch._dynamo.config.capture_scalar_outputs = True


class ScaledHead(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.fc(x)
        peak = h.abs().max().item()
        return h / (peak + 1.0)


class DtypeDispatch(nn.Module):
    """Branches on a dtype computed by torch.promote_types: a static value, no break."""

    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x, y):
        dtype = torch.promote_types(x.dtype, y.dtype)
        if dtype in (torch.float16, torch.bfloat16):
            x = x.float()
        return self.fc(x) + y


CASES = [
    ("ScaledHead", ScaledHead, lambda: (torch.randn(2, 8),)),
    ("DtypeDispatch", DtypeDispatch, lambda: (torch.randn(2, 8), torch.randn(2, 8))),
]
