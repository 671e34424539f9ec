"""Pre-norm transformer encoder with per-layer activation checkpointing, enabled the way
Hugging Face models do it (``gradient_checkpointing_enable``): during training each layer is
re-run in the backward pass instead of storing its activations."""
from functools import partial

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint


class EncoderLayer(nn.Module):
    def __init__(self, dim=16, num_heads=2, mlp_ratio=2.0, dropout=0.0):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, num_heads, dropout=dropout, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        hidden = int(dim * mlp_ratio)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))

    def forward(self, hidden_states, key_padding_mask=None):
        h = self.norm1(hidden_states)
        h, _ = self.attn(h, h, h, key_padding_mask=key_padding_mask, need_weights=False)
        hidden_states = hidden_states + h
        return hidden_states + self.mlp(self.norm2(hidden_states))


class Encoder(nn.Module):
    supports_gradient_checkpointing = True

    def __init__(self, dim=16, depth=3):
        super().__init__()
        self.layers = nn.ModuleList(EncoderLayer(dim) for _ in range(depth))
        self.final_norm = nn.LayerNorm(dim)
        self.gradient_checkpointing = False
        self._gradient_checkpointing_func = None

    def gradient_checkpointing_enable(self, use_reentrant=False):
        if not self.supports_gradient_checkpointing:
            raise ValueError(f"{type(self).__name__} does not support gradient checkpointing")
        self._gradient_checkpointing_func = partial(checkpoint, use_reentrant=use_reentrant)
        self.gradient_checkpointing = True
        return self

    def forward(self, hidden_states, key_padding_mask=None, output_hidden_states=False):
        all_hidden_states = () if output_hidden_states else None
        for layer in self.layers:
            if output_hidden_states:
                all_hidden_states = all_hidden_states + (hidden_states,)
            if self.gradient_checkpointing and self.training:
                hidden_states = self._gradient_checkpointing_func(layer.__call__, hidden_states, key_padding_mask)
            else:
                hidden_states = layer(hidden_states, key_padding_mask)
        hidden_states = self.final_norm(hidden_states)
        if output_hidden_states:
            return hidden_states, all_hidden_states + (hidden_states,)
        return hidden_states


class CheckpointedClassifier(nn.Module):
    def __init__(self, dim=16, num_classes=3):
        super().__init__()
        self.encoder = Encoder(dim).gradient_checkpointing_enable()
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x, labels):
        h = self.encoder(x)
        logits = self.head(h[:, 0])
        return F.cross_entropy(logits, labels, label_smoothing=0.1), logits


CASES = [
    ("Encoder-checkpointed", lambda: Encoder().gradient_checkpointing_enable(), lambda: (torch.randn(2, 6, 16),)),
    ("CheckpointedClassifier", CheckpointedClassifier, lambda: (torch.randn(2, 6, 16), torch.tensor([0, 2]))),
]
