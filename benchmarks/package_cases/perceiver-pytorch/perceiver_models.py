"""Perceiver and PerceiverIO, tiny, configured as the README shows."""
import torch
import torch.nn as nn
from perceiver_pytorch import Perceiver, PerceiverIO


def tiny_perceiver():
    return Perceiver(input_channels=3, input_axis=2, num_freq_bands=4, max_freq=10.0, depth=2,
                     num_latents=8, latent_dim=16, cross_heads=1, latent_heads=2, cross_dim_head=8,
                     latent_dim_head=8, num_classes=5, attn_dropout=0.0, ff_dropout=0.0,
                     weight_tie_layers=False, fourier_encode_data=True, self_per_cross_attn=1)


class PerceiverIOHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.io = PerceiverIO(dim=16, queries_dim=8, logits_dim=10, depth=2, num_latents=8,
                              latent_dim=16, cross_heads=1, latent_heads=2, cross_dim_head=8,
                              latent_dim_head=8, weight_tie_layers=False)

    def forward(self, seq, queries):
        return self.io(seq, queries=queries)


class MaskedPerceiver(nn.Module):
    """A classifier that passes a padding mask."""

    def __init__(self):
        super().__init__()
        self.perceiver = tiny_perceiver()

    def forward(self, img, mask):
        return self.perceiver(img, mask=mask)


CASES = [
    ("Perceiver", tiny_perceiver, lambda: (torch.randn(1, 6, 6, 3),)),
    ("PerceiverIOHead", lambda: PerceiverIOHead(), lambda: (torch.randn(1, 12, 16), torch.randn(4, 8))),
    ("MaskedPerceiver", lambda: MaskedPerceiver(), lambda: (torch.randn(2, 6, 6, 3), torch.ones(2, 36, dtype=torch.bool))),
]
