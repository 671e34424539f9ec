"""Vision Transformer stem with dynamic image size support.

Patch embedding, class / register tokens and absolute position embeddings that are resampled
on the fly when the input resolution differs from the pretraining one (timm ``dynamic_img_size``).
"""
import inspect
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from .vis_layers import resample_abs_pos_embed, to_2tuple


class PatchEmbed(nn.Module):
    def __init__(self, img_size=16, patch_size=4, in_chans=3, embed_dim=24, norm_layer=None, strict_img_size=False):
        super().__init__()
        self.img_size = to_2tuple(img_size)
        self.patch_size = to_2tuple(patch_size)
        self.grid_size = tuple(s // p for s, p in zip(self.img_size, self.patch_size))
        self.num_patches = self.grid_size[0] * self.grid_size[1]
        self.strict_img_size = strict_img_size
        self.proj = nn.Conv2d(in_chans, embed_dim, kernel_size=patch_size, stride=patch_size)
        self.norm = norm_layer(embed_dim) if norm_layer else nn.Identity()

    def forward(self, x):
        B, C, H, W = x.shape
        if self.strict_img_size:
            torch._assert(H == self.img_size[0], f"Input height ({H}) doesn't match model ({self.img_size[0]}).")
        pad_h = (self.patch_size[0] - H % self.patch_size[0]) % self.patch_size[0]
        pad_w = (self.patch_size[1] - W % self.patch_size[1]) % self.patch_size[1]
        x = F.pad(x, (0, pad_w, 0, pad_h))
        x = self.proj(x)
        feat_size = x.shape[-2:]
        x = x.flatten(2).transpose(1, 2)
        return self.norm(x), feat_size


class VisionTransformerStem(nn.Module):
    def __init__(self, img_size=16, patch_size=4, embed_dim=24, num_reg_tokens=0, class_token=True):
        super().__init__()
        embed_args = {"img_size": img_size, "patch_size": patch_size, "embed_dim": embed_dim}
        accepted = inspect.signature(PatchEmbed).parameters
        self.patch_embed = PatchEmbed(**{k: v for k, v in embed_args.items() if k in accepted}, norm_layer=nn.LayerNorm)
        self.num_prefix_tokens = (1 if class_token else 0) + num_reg_tokens
        self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dim)) if class_token else None
        self.reg_token = nn.Parameter(torch.zeros(1, num_reg_tokens, embed_dim)) if num_reg_tokens else None
        num_pos = self.patch_embed.num_patches + (1 if class_token else 0)
        self.pos_embed = nn.Parameter(torch.randn(1, num_pos, embed_dim) * 0.02)
        self.pos_drop = nn.Dropout(0.1)

    def _pos_embed(self, x, feat_size):
        pos_embed = resample_abs_pos_embed(
            self.pos_embed, (int(feat_size[0]), int(feat_size[1])),
            num_prefix_tokens=0 if self.cls_token is None else 1,
        )
        to_cat = []
        if self.cls_token is not None:
            to_cat.append(self.cls_token.expand(x.shape[0], -1, -1))
        x = torch.cat(to_cat + [x], dim=1) if to_cat else x
        x = x + pos_embed
        if self.reg_token is not None:
            x = torch.cat([x[:, :1], self.reg_token.expand(len(x), -1, -1), x[:, 1:]], dim=1)
        return self.pos_drop(x)

    def forward(self, images):
        x, feat_size = self.patch_embed(images)
        x = self._pos_embed(x, feat_size)
        grid = int(math.sqrt(x.shape[1] - self.num_prefix_tokens))
        return x, (grid, grid) if grid * grid == x.shape[1] - self.num_prefix_tokens else tuple(feat_size)


CASES = [
    ("ViTStem-native", VisionTransformerStem, lambda: (torch.randn(2, 3, 16, 16),)),
    ("ViTStem-hires-registers", lambda: VisionTransformerStem(num_reg_tokens=2).eval(),
     lambda: (torch.randn(1, 3, 22, 18),)),
]
