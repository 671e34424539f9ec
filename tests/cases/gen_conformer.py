"""Conformer encoder (Gulati et al., 2020) in the torchaudio layout.

Each block is macaron-style: half-step feed-forward, multi-head self-attention with a key
padding mask, a convolution module (pointwise conv + GLU, depthwise conv, batch norm, swish),
a second half-step feed-forward and a final layer norm.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class FeedForwardModule(nn.Module):
    def __init__(self, dim, expansion=4, dropout=0.0):
        super().__init__()
        self.sequential = nn.Sequential(
            nn.LayerNorm(dim), nn.Linear(dim, dim * expansion), nn.SiLU(), nn.Dropout(dropout),
            nn.Linear(dim * expansion, dim), nn.Dropout(dropout),
        )

    def forward(self, x):
        return self.sequential(x)


class ConvolutionModule(nn.Module):
    def __init__(self, dim, kernel_size=7, dropout=0.0):
        super().__init__()
        if (kernel_size - 1) % 2 != 0:
            raise ValueError("depthwise_kernel_size must be odd to achieve 'SAME' padding.")
        self.layer_norm = nn.LayerNorm(dim)
        self.pointwise_in = nn.Conv1d(dim, 2 * dim, 1)
        self.depthwise = nn.Conv1d(dim, dim, kernel_size, padding=(kernel_size - 1) // 2, groups=dim)
        self.norm = nn.BatchNorm1d(dim)
        self.pointwise_out = nn.Conv1d(dim, dim, 1)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        x = self.layer_norm(x).transpose(1, 2)
        x = F.glu(self.pointwise_in(x), dim=1)
        x = F.silu(self.norm(self.depthwise(x)))
        return self.dropout(self.pointwise_out(x)).transpose(1, 2)


class ConformerLayer(nn.Module):
    def __init__(self, dim, num_heads, kernel_size=7, dropout=0.0):
        super().__init__()
        self.ffn1 = FeedForwardModule(dim, dropout=dropout)
        self.self_attn_layer_norm = nn.LayerNorm(dim)
        self.self_attn = nn.MultiheadAttention(dim, num_heads, dropout=dropout, batch_first=True)
        self.conv_module = ConvolutionModule(dim, kernel_size, dropout)
        self.ffn2 = FeedForwardModule(dim, dropout=dropout)
        self.final_layer_norm = nn.LayerNorm(dim)

    def forward(self, x, key_padding_mask=None):
        x = x + 0.5 * self.ffn1(x)
        residual = x
        x = self.self_attn_layer_norm(x)
        x, _ = self.self_attn(x, x, x, key_padding_mask=key_padding_mask, need_weights=False)
        x = residual + x
        x = x + self.conv_module(x)
        x = x + 0.5 * self.ffn2(x)
        return self.final_layer_norm(x)


class Conformer(nn.Module):
    def __init__(self, input_dim=12, dim=16, num_heads=2, num_layers=2, kernel_size=5):
        super().__init__()
        self.input_linear = nn.Linear(input_dim, dim)
        self.xscale = math.sqrt(dim)
        self.num_layers = num_layers
        for i in range(num_layers):
            setattr(self, f"layer{i}", ConformerLayer(dim, num_heads, kernel_size))

    @staticmethod
    def lengths_to_padding_mask(lengths, max_length):
        return torch.arange(max_length, device=lengths.device)[None, :] >= lengths[:, None]

    def forward(self, features, lengths):
        assert features.dim() == 3, f"expected (batch, time, feat), got {tuple(features.shape)}"
        padding_mask = self.lengths_to_padding_mask(lengths, features.size(1))
        x = self.input_linear(features) * self.xscale
        for i in range(self.num_layers):
            x = getattr(self, f"layer{i}")(x, padding_mask)
        return x, lengths


CASES = [
    ("Conformer", Conformer, lambda: (torch.randn(2, 9, 12), torch.tensor([9, 6]))),
    ("Conformer-eval", lambda: Conformer(num_layers=1).eval(), lambda: (torch.randn(3, 7, 12), torch.tensor([7, 7, 3]))),
]
