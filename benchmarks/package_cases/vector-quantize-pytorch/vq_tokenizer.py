"""A tiny VQ tokenizer: encoder, VectorQuantize as README shows, decoder."""
import torch
import torch.nn as nn
from vector_quantize_pytorch import VectorQuantize


class VQTokenizer(nn.Module):
    def __init__(self, dim=16, codebook_size=32):
        super().__init__()
        self.enc = nn.Linear(8, dim)
        self.vq = VectorQuantize(dim=dim, codebook_size=codebook_size, decay=0.8, commitment_weight=1.0)
        self.dec = nn.Linear(dim, 8)

    def forward(self, x):
        quantized, indices, commit_loss = self.vq(self.enc(x))
        return self.dec(quantized), indices, commit_loss


class CosineVQ(nn.Module):
    """README: cosine similarity codebook, lower codebook dimension."""

    def __init__(self):
        super().__init__()
        self.vq = VectorQuantize(dim=16, codebook_size=32, codebook_dim=4, use_cosine_sim=True)

    def forward(self, x):
        quantized, indices, loss = self.vq(x)
        return quantized.sum() + loss


CASES = [
    ("VQTokenizer", lambda: VQTokenizer(), lambda: (torch.randn(2, 10, 8),)),
    ("CosineVQ", lambda: CosineVQ(), lambda: (torch.randn(2, 10, 16),)),
]
