"""Patch embedding that accepts images, feature maps or token sequences."""
import torch
import torch.nn as nn


class InputAdapter(nn.Module):
    """Base class: brings every supported input layout to (batch, tokens, dim)."""

    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def to_tokens(self, x):
        if isinstance(x, (list, tuple)):
            x = torch.stack(list(x))
        if x.dim() == 4:
            return x.flatten(2).transpose(1, 2)
        if x.dim() == 2:
            return x.unsqueeze(0)
        return x


class FlexiblePatchEmbed(InputAdapter):
    def __init__(self, in_ch=3, dim=16, patch=4, drop=0.1):
        super().__init__(dim)
        self.proj = nn.Conv2d(in_ch, dim, patch, stride=patch)
        self.pos = nn.Parameter(torch.zeros(1, 16, dim))
        self.drop = nn.Dropout(drop)
        self.token_proj = nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        if x.dim() == 4 and x.shape[1] != self.dim:
            x = self.proj(x)
        tokens = self.to_tokens(x)
        if tokens.shape[-1] == self.dim and tokens.dtype == torch.float32:
            tokens = self.token_proj(tokens)
        n = tokens.shape[1]
        if n <= self.pos.shape[1]:
            tokens = tokens + self.pos[:, :n]
        if mask is not None:
            tokens = tokens * mask.unsqueeze(-1)
        if self.training:
            tokens = self.drop(tokens)
        return tokens


CASES = [
    ("FlexiblePatchEmbed-image", FlexiblePatchEmbed, lambda: (torch.randn(2, 3, 16, 16),)),
    ("FlexiblePatchEmbed-tokens", lambda: FlexiblePatchEmbed().eval(),
     lambda: (torch.randn(2, 7, 16), torch.ones(2, 7))),
]
