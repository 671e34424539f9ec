"""Cropping helpers shared by several heads: a tensor slice bound inside a helper that
forward calls, a start bound from the data, and a crop whose bound is computed from the
shape (which traces)."""
import torch
import torch.nn as nn


def crop_time(x, length):
    return x[:, :length]


class HelperCrop(nn.Module):
    """Crops to the longest sequence through a shared helper, after the projection."""

    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.proj(x))
        h = crop_time(h, lengths.max())
        return h.sum(1)


class DropLeadingPadding(nn.Module):
    """Drops the left padding up to the first position any sequence uses."""

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        start = mask.float().argmax(-1).min()
        return x[:, start:]


class HelperShapeCrop(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.proj(x))
        return crop_time(h, x.size(1) - 1).sum(1)


CASES = [
    ("HelperCrop", HelperCrop, lambda: (torch.randn(2, 6, 8), torch.tensor([3, 5]))),
    ("DropLeadingPadding", DropLeadingPadding,
     lambda: (torch.randn(2, 6), torch.tensor([[0, 1, 1, 1, 1, 1], [0, 0, 1, 1, 1, 1]]))),
    ("HelperShapeCrop", HelperShapeCrop, lambda: (torch.randn(2, 6, 8), torch.tensor([3, 5]))),
]
