"""Vision Transformer encoder block with fused / reference attention paths.

Mirrors ``timm.models.vision_transformer.Attention`` and ``Block``: qk-norm, layer scale,
``F.scaled_dot_product_attention`` when available and an explicit softmax path otherwise.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F


class Attention(nn.Module):
    fused_attn: bool

    def __init__(self, dim, num_heads=4, qkv_bias=False, qk_norm=False, fused_attn=True):
        super().__init__()
        assert dim % num_heads == 0, "dim should be divisible by num_heads"
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        self.scale = 1.0 / math.sqrt(self.head_dim)
        self.fused_attn = fused_attn and hasattr(F, "scaled_dot_product_attention")
        self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
        self.q_norm = nn.LayerNorm(self.head_dim) if qk_norm else nn.Identity()
        self.k_norm = nn.LayerNorm(self.head_dim) if qk_norm else nn.Identity()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, attn_mask=None):
        B, N, C = x.shape
        qkv = self.qkv(x).reshape(B, N, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        q, k = self.q_norm(q), self.k_norm(k)
        if self.fused_attn:
            x = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask)
        else:
            attn = (q * self.scale) @ k.transpose(-2, -1)
            if attn_mask is not None:
                attn = attn.masked_fill(~attn_mask, torch.finfo(attn.dtype).min)
            x = attn.softmax(dim=-1) @ v
        x = x.transpose(1, 2).reshape(B, N, C)
        return self.proj(x)


class LayerScale(nn.Module):
    def __init__(self, dim, init_values=1e-5, inplace=False):
        super().__init__()
        self.inplace = inplace
        self.gamma = nn.Parameter(init_values * torch.ones(dim))

    def forward(self, x):
        return x.mul_(self.gamma) if self.inplace else x * self.gamma


class Block(nn.Module):
    def __init__(self, dim=32, num_heads=4, mlp_ratio=2.0, init_values=None, **attn_kwargs):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, num_heads=num_heads, **attn_kwargs)
        self.ls1 = LayerScale(dim, init_values) if init_values else nn.Identity()
        self.norm2 = nn.LayerNorm(dim)
        hidden = int(dim * mlp_ratio)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))
        self.ls2 = LayerScale(dim, init_values) if init_values else nn.Identity()

    def forward(self, x, attn_mask=None):
        if not torch.compiler.is_compiling() and x.shape[-1] != self.norm1.normalized_shape[0]:
            raise ValueError(f"token dim {x.shape[-1]} does not match block dim {x.mean()}")
        x = x + self.ls1(self.attn(self.norm1(x), attn_mask=attn_mask))
        x = x + self.ls2(self.mlp(self.norm2(x)))
        return x


def make_masked_inputs():
    x = torch.randn(2, 5, 32)
    mask = torch.ones(2, 1, 5, 5, dtype=torch.bool)
    mask[:, :, :, -1] = False
    return x, mask


CASES = [
    ("ViTBlock-fused", lambda: Block(init_values=1e-5, qk_norm=True), lambda: (torch.randn(2, 5, 32),)),
    ("ViTBlock-reference-masked", lambda: Block(fused_attn=False).eval(), make_masked_inputs),
]
