"""Glow-style normalising flow for 1-D features (Kingma & Dhariwal, 2018).

One flow step is ActNorm -> invertible linear mixing (LU-decomposed) -> affine coupling. Every
layer returns its output and the log-determinant of its Jacobian, so the model yields the exact
log-likelihood under a standard-normal base distribution.
"""
import math

import torch
from torch import nn


class ActNorm(nn.Module):
    def __init__(self, num_features):
        super().__init__()
        self.loc = nn.Parameter(torch.zeros(1, num_features))
        self.log_scale = nn.Parameter(torch.zeros(1, num_features))
        self.initialized = False

    def initialize(self, x):
        with torch.no_grad():
            mean = x.mean(0, keepdim=True)
            std = x.std(0, keepdim=True)
            self.loc.copy_(-mean)
            self.log_scale.copy_(torch.log(1.0 / (std + 1e-6)))

    def forward(self, x):
        if not self.initialized and self.training:
            self.initialize(x)
            self.initialized = True
        y = (x + self.loc) * torch.exp(self.log_scale)
        return y, self.log_scale.sum().expand(x.shape[0])


class InvertibleLinearLU(nn.Module):
    def __init__(self, num_features):
        super().__init__()
        weight, _ = torch.linalg.qr(torch.randn(num_features, num_features))
        P, L, U = torch.linalg.lu(weight)
        s = torch.diagonal(U)
        self.register_buffer("P", P)
        self.register_buffer("sign_s", torch.sign(s))
        self.register_buffer("lower_mask", torch.tril(torch.ones_like(weight), -1))
        self.register_buffer("eye", torch.eye(num_features))
        self.L = nn.Parameter(L)
        self.U = nn.Parameter(torch.triu(U, 1))
        self.log_s = nn.Parameter(torch.log(torch.abs(s)))

    def forward(self, x):
        lower = self.L * self.lower_mask + self.eye
        upper = self.U * self.lower_mask.t() + torch.diag(self.sign_s * torch.exp(self.log_s))
        weight = self.P @ lower @ upper
        return x @ weight.t(), self.log_s.sum().expand(x.shape[0])


class AffineCoupling(nn.Module):
    def __init__(self, num_features, hidden=32):
        super().__init__()
        self.split = num_features // 2
        self.net = nn.Sequential(
            nn.Linear(self.split, hidden), nn.ReLU(), nn.Linear(hidden, 2 * (num_features - self.split))
        )
        nn.init.zeros_(self.net[-1].weight)
        nn.init.zeros_(self.net[-1].bias)

    def forward(self, x):
        xa, xb = x[:, :self.split], x[:, self.split:]
        log_s, t = self.net(xa).chunk(2, dim=1)
        scale = torch.sigmoid(log_s + 2.0) + torch.finfo(x.dtype).eps
        yb = (xb + t) * scale
        return torch.cat([xa, yb], dim=1), torch.log(scale).sum(1)


class Glow1d(nn.Module):
    def __init__(self, num_features=6, num_steps=3):
        super().__init__()
        self.actnorms = nn.ModuleList(ActNorm(num_features) for _ in range(num_steps))
        self.mixers = nn.ModuleList(InvertibleLinearLU(num_features) for _ in range(num_steps))
        self.couplings = nn.ModuleList(AffineCoupling(num_features) for _ in range(num_steps))

    def forward(self, x):
        log_det = torch.zeros(x.shape[0], dtype=x.dtype)
        for actnorm, mixer, coupling in zip(self.actnorms, self.mixers, self.couplings):
            for layer in (actnorm, mixer, coupling):
                x, ld = layer(x)
                log_det = log_det + ld
        log_pz = -0.5 * (x.pow(2) + math.log(2 * math.pi)).sum(1)
        return -(log_pz + log_det).mean() / (x.shape[1] * math.log(2.0)), x


CASES = [
    ("Glow1d", Glow1d, lambda: (torch.randn(5, 6),)),
    ("Glow1d-eval", lambda: Glow1d(num_steps=2).eval(), lambda: (torch.randn(5, 6),)),
]
