"""Vector quantiser with an exponential-moving-average codebook (VQ-VAE-2 / SoundStream style).

Inputs are channel-first feature maps. Codes are found by nearest squared Euclidean distance,
the codebook follows the running cluster sizes and sums under `torch.no_grad()` while training,
and gradients reach the encoder through the straight-through estimator.
"""
import torch
from torch import nn
from torch.nn import functional as F


class EuclideanCodebook(nn.Module):
    def __init__(self, dim, codebook_size, decay=0.99, epsilon=1e-5):
        super().__init__()
        self.decay = decay
        self.epsilon = epsilon
        self.codebook_size = codebook_size
        embed = torch.randn(codebook_size, dim)
        self.register_buffer("embed", embed)
        self.register_buffer("cluster_size", torch.zeros(codebook_size))
        self.register_buffer("embed_avg", embed.clone())

    def quantize(self, x):
        distances = (
            x.pow(2).sum(1, keepdim=True)
            - 2 * x @ self.embed.t()
            + self.embed.pow(2).sum(1, keepdim=True).t()
        )
        return distances.argmin(dim=-1)

    def dequantize(self, codes):
        return F.embedding(codes, self.embed)

    @torch.no_grad()
    def ema_update(self, flat, codes):
        onehot = F.one_hot(codes, self.codebook_size).type(flat.dtype)
        self.cluster_size.mul_(self.decay).add_(onehot.sum(0), alpha=1 - self.decay)
        self.embed_avg.mul_(self.decay).add_(onehot.t() @ flat, alpha=1 - self.decay)
        n = self.cluster_size.sum()
        smoothed = (self.cluster_size + self.epsilon) / (n + self.codebook_size * self.epsilon) * n
        self.embed.copy_(self.embed_avg / smoothed.unsqueeze(1))

    def forward(self, x):
        shape = x.shape
        flat = x.reshape(-1, shape[-1])
        codes = self.quantize(flat)
        if self.training:
            self.ema_update(flat, codes)
        return self.dequantize(codes).view(shape), codes.view(shape[:-1])


class VectorQuantize(nn.Module):
    def __init__(self, dim=8, codebook_size=16, codebook_dim=None, commitment_weight=0.25):
        super().__init__()
        codebook_dim = codebook_dim or dim
        requires_projection = codebook_dim != dim
        self.project_in = nn.Linear(dim, codebook_dim) if requires_projection else nn.Identity()
        self.project_out = nn.Linear(codebook_dim, dim) if requires_projection else nn.Identity()
        self.codebook = EuclideanCodebook(codebook_dim, codebook_size)
        self.commitment_weight = commitment_weight

    def forward(self, x):
        x = x.transpose(1, 2)
        x = self.project_in(x)
        quantize, codes = self.codebook(x)
        loss = torch.tensor([0.0], device=x.device, requires_grad=self.training)
        if self.training:
            quantize = x + (quantize - x).detach()
            if self.commitment_weight > 0:
                loss = loss + F.mse_loss(quantize.detach(), x) * self.commitment_weight
        quantize = self.project_out(quantize).transpose(1, 2)
        return quantize, codes, loss


CASES = [
    ("VectorQuantize", VectorQuantize, lambda: (torch.randn(2, 8, 10),)),
    ("VectorQuantize-proj-eval", lambda: VectorQuantize(codebook_dim=4).eval(), lambda: (torch.randn(2, 8, 10),)),
]
