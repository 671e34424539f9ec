"""A training flag passed to a helper of another file (`if training:` there): the break under
it happens in training mode, whether the flag is `self.training` or `self.training and self.p >
0` with `p` set; a flag that is a shape test is not the mode. The cases are named by the mode
(`-train`, `-eval`)."""
import torch
import torch.nn as nn

from .flag_ops import noisy, scaled_by_spread


class ShapeThenMode(nn.Module):
    """The helper called with a shape test first (two rows: not taken), then with the mode."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        h = self.proj(x)
        h = scaled_by_spread(h, h.shape[0] > 4)
        return scaled_by_spread(h, self.training)


class DropoutGate(nn.Module):
    def __init__(self, p=0.1):
        super().__init__()
        self.p = p
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        return noisy(self.proj(x), self.training and self.p > 0)


class SwitchedOff(nn.Module):
    """Near miss: the constructor's default turns the flag off in every mode."""

    def __init__(self, use_noise=False):
        super().__init__()
        self.use_noise = use_noise
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        return noisy(self.proj(x), self.training and self.use_noise)


CASES = [
    ("ShapeThenMode-train", ShapeThenMode, lambda: (torch.randn(2, 8),)),
    ("ShapeThenMode-eval", lambda: ShapeThenMode().eval(), lambda: (torch.randn(2, 8),)),
    ("DropoutGate-train", DropoutGate, lambda: (torch.randn(2, 8),)),
    ("DropoutGate-eval", lambda: DropoutGate().eval(), lambda: (torch.randn(2, 8),)),
    ("SwitchedOff-train", SwitchedOff, lambda: (torch.randn(2, 8),)),
    ("SwitchedOff-eval", lambda: SwitchedOff().eval(), lambda: (torch.randn(2, 8),)),
]
