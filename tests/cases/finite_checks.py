"""Layer normalisation with input validation, as written in many research codebases."""
import torch
import torch.nn as nn


class CheckedLayerNorm(nn.Module):
    def __init__(self, dim=16, eps=1e-5):
        super().__init__()
        self.dim = dim
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x):
        assert x.shape[-1] == self.dim, f"expected last dim {self.dim}, got {x.shape[-1]}"
        assert torch.isfinite(x).all(), "non-finite activations"
        mean = x.mean(-1, keepdim=True)
        var = x.var(-1, keepdim=True, unbiased=False)
        y = (x - mean) / torch.sqrt(var + self.eps)
        assert (y.abs() < 1e4).all()
        return y * self.weight + self.bias


CASES = [("CheckedLayerNorm", CheckedLayerNorm, lambda: (torch.randn(3, 4, 16),))]
