"""Conditional layer norm (AdaLN) whose helpers reach parameters through properties."""
import torch
from torch import nn


class AdaLayerNorm(nn.Module):
    def __init__(self, dim=16, cond_dim=8):
        super().__init__()
        self.norm = nn.LayerNorm(dim, elementwise_affine=False)
        self.modulation = nn.Linear(cond_dim, 2 * dim)

    @property
    def dtype(self):
        return self.modulation.weight.dtype

    @property
    def zero_init(self):
        return bool(self.modulation.bias is not None and self.modulation.bias.requires_grad)

    @staticmethod
    def modulate(x, shift, scale):
        return x * (1 + scale.unsqueeze(1)) + shift.unsqueeze(1)

    def _shift_scale(self, cond):
        return self._project(cond).chunk(2, dim=-1)

    def _project(self, cond):
        return self.modulation(torch.nn.functional.silu(cond.to(self.dtype)))

    def forward(self, x, cond):
        shift, scale = self._shift_scale(cond)
        if self.zero_init:
            scale = scale * 1.0
        return self.modulate(self.norm(x), shift, scale)


CASES = [("AdaLayerNorm", AdaLayerNorm, lambda: (torch.randn(2, 5, 16), torch.randn(2, 8)))]
