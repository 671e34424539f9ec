"""Residual vector quantiser (SoundStream / EnCodec) with quantizer dropout and dead-code expiry.

Each stage quantises the residual left by the previous stages. While training, a random number of
stages is used per batch (quantizer dropout, enabling bitrate scalability), and codes whose usage
falls below `threshold_ema_dead_code` are replaced by random encoder outputs from the batch.
"""
import math
import random

import torch
import torch.nn as nn
import torch.nn.functional as F


class QuantizerStage(nn.Module):
    def __init__(self, dim, codebook_size, decay=0.9, threshold_ema_dead_code=0.5):
        super().__init__()
        self.codebook = nn.Parameter(torch.randn(codebook_size, dim))
        self.decay = decay
        self.threshold_ema_dead_code = threshold_ema_dead_code
        self.register_buffer("cluster_size", torch.ones(codebook_size))

    def _replace(self, samples, mask):
        picks = torch.randint(0, samples.shape[0], (self.codebook.shape[0],), device=samples.device)
        self.codebook.data[mask] = samples[picks][mask]
        self.cluster_size[mask] = self.threshold_ema_dead_code

    def _expire_codes(self, flat):
        expired = self.cluster_size < self.threshold_ema_dead_code
        self._replace(flat.detach(), expired)

    def forward(self, residual):
        flat = residual.reshape(-1, residual.shape[-1])
        dist = torch.cdist(flat, self.codebook)
        codes = dist.argmin(-1)
        if self.training:
            counts = torch.bincount(codes, minlength=self.codebook.shape[0]).to(flat.dtype)
            self.cluster_size.mul_(self.decay).add_(counts, alpha=1 - self.decay)
            self._expire_codes(flat)
        quantized = F.embedding(codes, self.codebook).view_as(residual)
        commit = F.mse_loss(residual, quantized.detach())
        quantized = residual + (quantized - residual).detach()
        return quantized, codes.view(residual.shape[:-1]), commit


class ResidualVectorQuantizer(nn.Module):
    def __init__(self, dim=8, n_q=4, bins=16, frame_rate=50, quantizer_dropout=True):
        super().__init__()
        self.n_q = n_q
        self.frame_rate = frame_rate
        self.bits_per_stage = math.log2(bins)
        self.quantizer_dropout = quantizer_dropout
        self.layers = nn.ModuleList(QuantizerStage(dim, bins) for _ in range(n_q))

    def num_quantizers_for_bandwidth(self, bandwidth=None):
        bw_per_q = self.bits_per_stage * self.frame_rate
        if bandwidth is not None and bandwidth > 0.0:
            return int(max(1, math.floor(bandwidth * 1000 / bw_per_q)))
        return self.n_q

    def forward(self, x, bandwidth=None):
        x = x.transpose(1, 2)
        n_q = self.num_quantizers_for_bandwidth(bandwidth)
        if self.training and self.quantizer_dropout:
            n_q = random.randint(1, self.n_q)
        residual, quantized_out = x, torch.zeros_like(x)
        all_codes, losses = [], []
        for layer in self.layers[:n_q]:
            quantized, codes, loss = layer(residual)
            residual = residual - quantized.detach()
            quantized_out = quantized_out + quantized
            all_codes.append(codes)
            losses.append(loss)
        codes = torch.stack(all_codes)
        usage = lambda c: torch.unique(c).numel() / float(self.layers[0].codebook.shape[0])
        stats = {"codebook_usage": [usage(c) for c in codes], "bandwidth": n_q * self.bits_per_stage * self.frame_rate}
        return quantized_out.transpose(1, 2), codes, torch.stack(losses).mean(), stats


CASES = [
    ("ResidualVectorQuantizer", ResidualVectorQuantizer, lambda: (torch.randn(2, 8, 6),)),
    ("ResidualVectorQuantizer-eval-6kbps", lambda: ResidualVectorQuantizer().eval(),
     lambda: (torch.randn(2, 8, 6), 0.6)),
]
