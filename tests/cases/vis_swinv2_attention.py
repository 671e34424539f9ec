"""Swin Transformer V2 window attention: scaled cosine attention with a continuous position bias.

The logit scale is learned in log space and clamped to ``log(1 / 0.01)``; the relative position
bias comes from a small MLP over log-spaced relative coordinates (Liu et al., 2022).
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class ContinuousPositionBias(nn.Module):
    def __init__(self, window_size, num_heads, hidden_dim=32):
        super().__init__()
        self.window_size = window_size
        self.cpb_mlp = nn.Sequential(nn.Linear(2, hidden_dim), nn.ReLU(inplace=True), nn.Linear(hidden_dim, num_heads, bias=False))
        rel = torch.arange(-(window_size - 1), window_size, dtype=torch.float32)
        table = torch.stack(torch.meshgrid(rel, rel, indexing="ij")).permute(1, 2, 0).contiguous()
        table = table / (window_size - 1) * 8
        table = torch.sign(table) * torch.log2(table.abs() + 1.0) / math.log2(8)
        self.register_buffer("relative_coords_table", table, persistent=False)
        coords = torch.stack(torch.meshgrid(torch.arange(window_size), torch.arange(window_size), indexing="ij")).flatten(1)
        relative = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0) + (window_size - 1)
        self.register_buffer("relative_position_index", relative[..., 0] * (2 * window_size - 1) + relative[..., 1], persistent=False)

    def forward(self):
        table = self.cpb_mlp(self.relative_coords_table).view(-1, self.cpb_mlp[-1].out_features)
        n = self.window_size * self.window_size
        bias = table[self.relative_position_index.view(-1)].view(n, n, -1).permute(2, 0, 1)
        return 16 * torch.sigmoid(bias)


class WindowAttentionV2(nn.Module):
    def __init__(self, dim=16, window_size=3, num_heads=2, max_logit=1.0 / 0.01):
        super().__init__()
        self.num_heads = num_heads
        self.max_logit = max_logit
        self.logit_scale = nn.Parameter(torch.log(10 * torch.ones((num_heads, 1, 1))))
        self.cpb = ContinuousPositionBias(window_size, num_heads)
        self.qkv = nn.Linear(dim, dim * 3, bias=False)
        self.q_bias = nn.Parameter(torch.zeros(dim))
        self.v_bias = nn.Parameter(torch.zeros(dim))
        self.proj = nn.Linear(dim, dim)

    @property
    def logit_temperature(self):
        scale = torch.clamp(self.logit_scale, max=math.log(self.max_logit)).exp()
        return scale if scale.numel() > 1 else float(scale)

    @property
    def max_temperature(self):
        return float(self.logit_scale.detach().exp().max())

    def forward(self, x, mask=None):
        B_, N, C = x.shape
        qkv_bias = torch.cat((self.q_bias, torch.zeros_like(self.v_bias, requires_grad=False), self.v_bias))
        qkv = F.linear(x, self.qkv.weight, qkv_bias).reshape(B_, N, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        attn = F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)
        attn = attn * self.logit_temperature.clamp(max=self.max_temperature)
        attn = attn + self.cpb().unsqueeze(0)
        if mask is not None:
            attn = attn + mask.repeat_interleave(B_ // mask.shape[0], dim=0).unsqueeze(1)
        x = (attn.softmax(dim=-1) @ v).transpose(1, 2).reshape(B_, N, -1)
        return self.proj(x)


CASES = [
    ("WindowAttentionV2", WindowAttentionV2, lambda: (torch.randn(4, 9, 16),)),
    ("WindowAttentionV2-masked", lambda: WindowAttentionV2().eval(), lambda: (torch.randn(4, 9, 16), torch.zeros(2, 9, 9))),
]
