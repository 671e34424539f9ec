"""The functional forms: apply_rotary_emb with freqs, axial (pixel) frequencies, cached keys."""
import torch
import torch.nn as nn
from rotary_embedding_torch import RotaryEmbedding, apply_rotary_emb


class AxialRotary(nn.Module):
    def __init__(self):
        super().__init__()
        self.pos_emb = RotaryEmbedding(dim=8, freqs_for="pixel", max_freq=64)

    def forward(self, q):
        freqs = self.pos_emb.get_axial_freqs(4, 4)
        return apply_rotary_emb(freqs, q)


class CachedKeyRotary(nn.Module):
    def __init__(self):
        super().__init__()
        self.rotary = RotaryEmbedding(dim=16)

    def forward(self, q, k):
        q, k = self.rotary.rotate_queries_with_cached_keys(q, k)
        return q @ k.transpose(-1, -2)


class OffsetRotary(nn.Module):
    """Decoding with a position offset, as in an inference loop."""

    def __init__(self):
        super().__init__()
        self.rotary = RotaryEmbedding(dim=16)

    def forward(self, q, start):
        return self.rotary.rotate_queries_or_keys(q, offset=int(start))


CASES = [
    ("AxialRotary", lambda: AxialRotary(), lambda: (torch.randn(1, 4, 4, 16),)),
    ("CachedKeyRotary", lambda: CachedKeyRotary(), lambda: (torch.randn(1, 2, 1, 16), torch.randn(1, 2, 5, 16))),
    ("OffsetRotary", lambda: OffsetRotary(), lambda: (torch.randn(1, 2, 3, 16), torch.tensor(4))),
]
