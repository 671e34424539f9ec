"""Swin Transformer block: (shifted) window attention with relative position bias.

Window partitioning, cyclic shift and the shifted-window attention mask follow
"Swin Transformer: Hierarchical Vision Transformer using Shifted Windows" (Liu et al., 2021).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from .vis_layers import to_2tuple


def window_partition(x, window_size):
    B, H, W, C = x.shape
    x = x.view(B, H // window_size[0], window_size[0], W // window_size[1], window_size[1], C)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, window_size[0] * window_size[1], C)


def window_reverse(windows, window_size, H: int, W: int):
    C = windows.shape[-1]
    x = windows.view(-1, H // window_size[0], W // window_size[1], window_size[0], window_size[1], C)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, H, W, C)


def get_relative_position_index(win_h, win_w):
    coords = torch.stack(torch.meshgrid(torch.arange(win_h), torch.arange(win_w), indexing="ij"))
    coords_flatten = torch.flatten(coords, 1)
    relative = (coords_flatten[:, :, None] - coords_flatten[:, None, :]).permute(1, 2, 0).contiguous()
    relative[:, :, 0] += win_h - 1
    relative[:, :, 1] += win_w - 1
    relative[:, :, 0] *= 2 * win_w - 1
    return relative.sum(-1)


class SwinTransformerBlock(nn.Module):
    def __init__(self, dim=16, num_heads=2, window_size=4, shift_size=0):
        super().__init__()
        self.window_size = to_2tuple(window_size)
        self.shift_size = shift_size
        self.num_heads = num_heads
        self.scale = (dim // num_heads) ** -0.5
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        win_h, win_w = self.window_size
        self.relative_position_bias_table = nn.Parameter(torch.zeros((2 * win_h - 1) * (2 * win_w - 1), num_heads))
        self.register_buffer("relative_position_index", get_relative_position_index(win_h, win_w), persistent=False)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def _attn_mask(self, Hp, Wp, device):
        img_mask = torch.zeros((1, Hp, Wp, 1), device=device)
        cnt = 0
        for h in (slice(0, -self.window_size[0]), slice(-self.window_size[0], -self.shift_size), slice(-self.shift_size, None)):
            for w in (slice(0, -self.window_size[1]), slice(-self.window_size[1], -self.shift_size), slice(-self.shift_size, None)):
                img_mask[:, h, w, :] = cnt
                cnt += 1
        mask_windows = window_partition(img_mask, self.window_size).squeeze(-1)
        attn_mask = mask_windows.unsqueeze(1) - mask_windows.unsqueeze(2)
        return attn_mask.masked_fill(attn_mask != 0, float(-100.0)).masked_fill(attn_mask == 0, float(0.0))

    def _window_attention(self, x, mask=None):
        B_, N, C = x.shape
        qkv = self.qkv(x).reshape(B_, N, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        attn = (q * self.scale) @ k.transpose(-2, -1)
        bias = self.relative_position_bias_table[self.relative_position_index.view(-1)].view(N, N, -1)
        attn = attn + bias.permute(2, 0, 1).unsqueeze(0)
        if mask is not None:
            num_win = mask.shape[0]
            attn = attn.view(-1, num_win, self.num_heads, N, N) + mask.unsqueeze(1).unsqueeze(0)
            attn = attn.view(-1, self.num_heads, N, N)
        x = (attn.softmax(-1) @ v).transpose(1, 2).reshape(B_, N, C)
        return self.proj(x)

    def forward(self, x):
        B, H, W, C = x.shape
        shortcut = x
        x = self.norm1(x)
        pad_h = (self.window_size[0] - H % self.window_size[0]) % self.window_size[0]
        pad_w = (self.window_size[1] - W % self.window_size[1]) % self.window_size[1]
        if pad_h > 0 or pad_w > 0:
            x = F.pad(x, (0, 0, 0, pad_w, 0, pad_h))
        _, Hp, Wp, _ = x.shape
        if self.shift_size > 0:
            x = torch.roll(x, shifts=(-self.shift_size, -self.shift_size), dims=(1, 2))
            mask = self._attn_mask(Hp, Wp, x.device)
        else:
            mask = None
        x = window_reverse(self._window_attention(window_partition(x, self.window_size), mask), self.window_size, Hp, Wp)
        if self.shift_size > 0:
            x = torch.roll(x, shifts=(self.shift_size, self.shift_size), dims=(1, 2))
        x = x[:, :H, :W, :].contiguous()
        x = shortcut + x
        return x + self.mlp(self.norm2(x))


CASES = [
    ("SwinBlock-shifted-padded", lambda: SwinTransformerBlock(shift_size=2), lambda: (torch.randn(2, 6, 7, 16),)),
    ("SwinBlock-regular", lambda: SwinTransformerBlock().eval(), lambda: (torch.randn(1, 8, 8, 16),)),
]
