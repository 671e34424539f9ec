"""A break reached only when an optional input is given (`if mask is not None and ...`); the
cases are named by the call (`-given`, `-none`)."""
import torch
import torch.nn as nn


class MaskedPool(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x, attention_mask=None):
        h = self.proj(x)
        if attention_mask is not None and attention_mask.sum().item() < h.shape[1]:
            h = h * attention_mask[..., None]
        return h.mean(1)


class MaskedAlwaysSums(nn.Module):
    """Near miss: the break does not depend on the mask being given."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x, attention_mask=None):
        h = self.proj(x)
        if attention_mask is not None:
            h = h * attention_mask[..., None]
        return h.mean(1) * h.sum().item()


CASES = [
    ("MaskedPool-given", MaskedPool, lambda: (torch.randn(2, 4, 8), torch.tensor([[1.0, 1, 1, 0], [1, 1, 0, 0]]))),
    ("MaskedPool-none", MaskedPool, lambda: (torch.randn(2, 4, 8),)),
    ("MaskedAlwaysSums-given", MaskedAlwaysSums, lambda: (torch.randn(2, 4, 8), torch.ones(2, 4))),
    ("MaskedAlwaysSums-none", MaskedAlwaysSums, lambda: (torch.randn(2, 4, 8),)),
]
