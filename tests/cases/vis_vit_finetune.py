"""ViT classifier for fine-tuning at a higher resolution than pretraining.

When the input grid differs from the pretrained one, the absolute position embedding is
resampled with bicubic interpolation (and reported, as timm does when loading checkpoints).
"""
import torch
import torch.nn as nn

from .vis_layers import resample_abs_pos_embed


class ViTFinetune(nn.Module):
    def __init__(self, img_size=16, patch_size=4, embed_dim=24, depth=2, num_heads=4, num_classes=7, global_pool="token"):
        super().__init__()
        self.patch_size = patch_size
        self.pretrained_grid = (img_size // patch_size, img_size // patch_size)
        self.patch_embed = nn.Conv2d(3, embed_dim, patch_size, patch_size)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dim))
        self.pos_embed = nn.Parameter(torch.randn(1, 1 + self.pretrained_grid[0] * self.pretrained_grid[1], embed_dim) * 0.02)
        layer = nn.TransformerEncoderLayer(embed_dim, num_heads, embed_dim * 2, dropout=0.0, batch_first=True, norm_first=True)
        self.blocks = nn.ModuleList([layer] + [nn.TransformerEncoderLayer(embed_dim, num_heads, embed_dim * 2, dropout=0.0, batch_first=True, norm_first=True) for _ in range(depth - 1)])
        self.norm = nn.LayerNorm(embed_dim)
        self.global_pool = global_pool
        self.head = nn.Linear(embed_dim, num_classes)

    def _resolve_pos_embed(self, grid):
        verbose = tuple(grid) != self.pretrained_grid
        return resample_abs_pos_embed(self.pos_embed, grid, num_prefix_tokens=1, verbose=verbose)

    def _pos_embed(self, x):
        B, C, H, W = x.shape
        x = x.flatten(2).transpose(1, 2)
        x = torch.cat([self.cls_token.expand(B, -1, -1), x], dim=1)
        return x + self._resolve_pos_embed((H, W))

    def forward_head(self, x):
        if self.global_pool == "avg":
            x = x[:, 1:].mean(dim=1)
        else:
            x = x[:, 0]
        return self.head(x)

    def forward(self, images):
        x = self._pos_embed(self.patch_embed(images))
        for blk in self.blocks:
            x = blk(x)
        return self.forward_head(self.norm(x))


CASES = [
    ("ViTFinetune-pretrain-res", lambda: ViTFinetune().eval(), lambda: (torch.randn(2, 3, 16, 16),)),
    ("ViTFinetune-hires", lambda: ViTFinetune(global_pool="avg").eval(), lambda: (torch.randn(2, 3, 24, 20),)),
]
