"""A break after an `if` that returns on one outcome is reached only on the other: after
`if self.training: return h` in eval mode, after `if attention_mask is None: return ...` when the
mask is given. The cases are named by the setting the call runs in (`-train`, `-eval`,
`-given`, `-none`)."""
import torch
import torch.nn as nn


class TrainingReturnsFirst(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        h = self.proj(x)
        if self.training:
            return h
        return h / h.abs().max().item()


class NoneReturnsFirst(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x, attention_mask=None):
        h = self.proj(x)
        if attention_mask is None:
            return h.mean(1)
        return h[attention_mask.bool()].mean(0)


class NestedReturn(nn.Module):
    """Near miss: the `return` is inside the training branch; after that branch the code runs in
    eval mode too, so the break there is every mode's (no label)."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x, attention_mask=None):
        h = self.proj(x)
        if self.training:
            if attention_mask is None:
                return h.mean(1)
            h = h * attention_mask[..., None]
        return h.mean(1) * h.abs().max().item()


MASK = torch.tensor([[1.0, 1, 1, 0], [1, 1, 0, 0]])

CASES = [
    ("TrainingReturnsFirst-train", TrainingReturnsFirst, lambda: (torch.randn(2, 8),)),
    ("TrainingReturnsFirst-eval", lambda: TrainingReturnsFirst().eval(), lambda: (torch.randn(2, 8),)),
    ("NoneReturnsFirst-given", NoneReturnsFirst, lambda: (torch.randn(2, 4, 8), MASK)),
    ("NoneReturnsFirst-none", NoneReturnsFirst, lambda: (torch.randn(2, 4, 8),)),
    ("NestedReturn-train", NestedReturn, lambda: (torch.randn(2, 4, 8), MASK)),
    ("NestedReturn-eval", lambda: NestedReturn().eval(), lambda: (torch.randn(2, 4, 8), MASK)),
]
