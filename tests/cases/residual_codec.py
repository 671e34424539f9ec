"""Neural audio codecs (SoundStream) whose latents go through a residual vector quantizer."""
import torch
import torch.nn as nn

from .vq_codebooks import ResidualQuantizer


class AudioCodec(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(dim, dim), nn.GELU())
        self.rvq = ResidualQuantizer(dim=dim, codebook_size=16, num_quantizers=3)
        self.decoder = nn.Linear(dim, dim)

    def forward(self, x):
        quantized, codes = self.rvq(self.encoder(x))
        return self.decoder(quantized), codes


class SeededAudioCodec(nn.Module):
    """Near miss: codebooks seeded when the model is built, two of them of different sizes."""

    def __init__(self, dim=8):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(dim, dim), nn.GELU())
        self.rvq = ResidualQuantizer(dim=dim, codebook_size=(16, 8), seeded=True)
        self.decoder = nn.Linear(dim, dim)

    def forward(self, x):
        quantized, codes = self.rvq(self.encoder(x))
        return self.decoder(quantized), codes


CASES = [
    ("AudioCodec", AudioCodec, lambda: (torch.randn(2, 5, 8),)),
    ("SeededAudioCodec", SeededAudioCodec, lambda: (torch.randn(2, 5, 8),)),
]
