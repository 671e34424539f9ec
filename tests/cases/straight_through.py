"""Vector-quantisation bottleneck with a straight-through estimator (VQ-VAE)."""
import torch
import torch.nn as nn


class StraightThroughRound(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.round()

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


class VectorQuantizer(nn.Module):
    def __init__(self, codes=8, dim=4, beta=0.25):
        super().__init__()
        self.codebook = nn.Embedding(codes, dim)
        self.beta = beta

    def forward(self, z):
        flat = z.reshape(-1, z.shape[-1])
        dist = torch.cdist(flat, self.codebook.weight)
        idx = dist.argmin(-1)
        quantized = self.codebook(idx).view_as(z)
        commit = (quantized.detach() - z).pow(2).mean()
        if z.requires_grad:
            commit = commit * self.beta
        quantized = z + (quantized - z).detach()
        levels = StraightThroughRound.apply(z * 4) / 4
        return quantized, levels, commit


CASES = [("VectorQuantizer", VectorQuantizer, lambda: (torch.randn(2, 3, 4),))]
