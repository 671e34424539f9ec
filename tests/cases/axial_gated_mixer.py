"""The near miss of axial_lstm_mixer.py: the same hierarchy (flags decided by `union` in the
base `__init__`, identity placeholders, a subclass without forward that replaces them after
`super().__init__()` under the flags, passed as a class default argument to blocks built in a
loop), but the subclass's vertical mixer is a gated linear layer and its horizontal one stays the
identity: one graph, no break."""
import torch
import torch.nn as nn


class TokensIdentity(nn.Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, x):
        return x, None


class GatedTokens(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.gate = nn.Linear(dim, dim)

    def forward(self, x):
        return x * torch.sigmoid(self.gate(x)), None


class AxialTokensBase(nn.Module):
    def __init__(self, dim, union="cat"):
        super().__init__()
        self.with_vertical = True
        self.with_horizontal = True
        if union == "vertical":
            self.with_horizontal = False
        elif union == "horizontal":
            self.with_vertical = False
        self.mix_v = TokensIdentity()
        self.mix_h = TokensIdentity()

    def forward(self, x):
        B, H, W, C = x.shape
        out = x
        if self.with_vertical:
            v, _ = self.mix_v(x.permute(0, 2, 1, 3).reshape(-1, H, C))
            out = out + v.reshape(B, W, H, C).permute(0, 2, 1, 3)
        if self.with_horizontal:
            h, _ = self.mix_h(x.reshape(-1, W, C))
            out = out + h.reshape(B, H, W, C)
        return out


class GatedAxialTokens(AxialTokensBase):
    def __init__(self, dim, union="cat"):
        super().__init__(dim, union)
        if self.with_vertical:
            self.mix_v = GatedTokens(dim)


class TokensBlock(nn.Module):
    def __init__(self, dim, mixer_layer=GatedAxialTokens, union="cat"):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.mixer = mixer_layer(dim, union=union)

    def forward(self, x):
        return x + self.mixer(self.norm(x))


class TokensStage(nn.Module):
    def __init__(self, dim=8, depth=2, mixer_layer=GatedAxialTokens, union="cat"):
        super().__init__()
        self.blocks = nn.Sequential(*[TokensBlock(dim, mixer_layer=mixer_layer, union=union) for _ in range(depth)])

    def forward(self, x):
        return self.blocks(x)


CASES = [
    ("TokensStage", TokensStage, lambda: (torch.randn(2, 3, 5, 8),)),
]
