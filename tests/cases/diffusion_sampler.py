"""Deterministic DDIM-style sampler with a seeded noise generator."""
import torch
import torch.nn as nn


class TinyDenoiser(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim + 1, 32), nn.SiLU(), nn.Linear(32, dim))

    def forward(self, x, t):
        return self.net(torch.cat([x, t.expand(x.shape[0], 1)], dim=-1))


class DDIMSampler(nn.Module):
    def __init__(self, dim=8, steps=3, seed=1234):
        super().__init__()
        self.denoiser = TinyDenoiser(dim)
        self.steps = steps
        self.seed = seed
        self.register_buffer("alphas", torch.linspace(0.99, 0.5, steps))

    def forward(self, cond):
        generator = torch.Generator(device=cond.device).manual_seed(self.seed)
        x = torch.randn(cond.shape, generator=generator, device=cond.device)
        x = x + cond
        for i in reversed(range(self.steps)):
            a = self.alphas[i]
            eps = self.denoiser(x, a.view(1, 1))
            x0 = (x - (1 - a).sqrt() * eps) / a.sqrt()
            x = x0 * a.sqrt() + (1 - a).sqrt() * eps
        return x


CASES = [("DDIMSampler", DDIMSampler, lambda: (torch.randn(4, 8),))]
