"""A list attribute grown on every call, in the shape of a linted file (shared corpus
074_fstring_item_logging.py: a loss appending a formatted `.item()` to its history through a
method forward calls, after a break), and a list appended to directly in forward."""
import torch
from torch import nn


class DiceLoss(nn.Module):
    def __init__(self, smooth=1.0):
        super().__init__()
        self.smooth = smooth
        self.history = []

    def _record(self, dice):
        self.history.append(f"dice={dice.mean().item():.4f}")

    def forward(self, logits, target):
        p = logits.sigmoid().flatten(1)
        t = target.flatten(1)
        inter = (p * t).sum(-1)
        dice = (2 * inter + self.smooth) / (p.sum(-1) + t.sum(-1) + self.smooth)
        self._record(dice)
        return 1 - dice.mean()


class AttentionMaps(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.qk = nn.Linear(width, 2 * width)
        self.maps = []

    def forward(self, x):
        q, k = self.qk(x).chunk(2, dim=-1)
        attn = (q @ k.transpose(-2, -1)).softmax(-1)
        self.maps.append(attn.detach())
        return attn @ x


def dice_loss():
    loss = torch.compile(DiceLoss())
    logits, target = torch.randn(2, 1, 8, 8), (torch.rand(2, 1, 8, 8) > 0.5).float()
    for _ in range(4):
        loss(logits, target)


def attention_maps():
    model = torch.compile(AttentionMaps())
    x = torch.randn(2, 5, 8)
    for _ in range(4):
        model(x)


RECOMPILE_CASES = [
    ("dice_loss", dice_loss),
    ("attention_maps", attention_maps),
]
