"""Optional masks checked the ways attention code checks them: `mask is not None and
mask.any()` tests the mask's data, so it breaks; `mask is not None and mask.dtype == torch.bool`
is decided at trace time; after the join the masked scores are a tensor either way."""
import torch
import torch.nn as nn


class SkipEmptyMask(nn.Module):
    def forward(self, scores: torch.Tensor, mask=None) -> torch.Tensor:
        if mask is not None and mask.any():
            scores = scores.masked_fill(mask, -1e4)
        return scores.softmax(-1)


class BoolOrAdditiveMask(nn.Module):
    def forward(self, scores: torch.Tensor, mask=None) -> torch.Tensor:
        if mask is not None and mask.dtype == torch.bool:
            scores = scores.masked_fill(~mask, -1e4)
        elif mask is not None:
            scores = scores + mask
        return scores.softmax(-1)


class MaskedPeakLog(nn.Module):
    def forward(self, scores: torch.Tensor, mask=None) -> torch.Tensor:
        if mask is not None:
            scores = scores.masked_fill(~mask, -1e4)
        stats = {"peak": scores.amax().item()}
        return scores.softmax(-1) * len(stats)


CASES = [
    ("SkipEmptyMask", SkipEmptyMask, lambda: (torch.randn(2, 4), torch.rand(2, 4) > 0.5)),
    ("BoolOrAdditiveMask", BoolOrAdditiveMask, lambda: (torch.randn(2, 4), torch.rand(2, 4) > 0.3)),
    ("MaskedPeakLog", MaskedPeakLog, lambda: (torch.randn(2, 4), torch.rand(2, 4) > 0.3)),
]
