"""A mixture-of-experts layer that routes tokens by index, the way many research codebases do.
Gathering each expert's tokens with nonzero() gives shapes that depend on the data."""
import torch
import torch.nn as nn


class Expert(nn.Module):
    def __init__(self, d_model: int, d_ff: int):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_model, d_ff), nn.ReLU(), nn.Linear(d_ff, d_model))

    def forward(self, x):
        return self.net(x)


class MoELayer(nn.Module):
    def __init__(self, d_model: int = 32, d_ff: int = 64, n_experts: int = 4):
        super().__init__()
        self.gate = nn.Linear(d_model, n_experts)
        self.experts = nn.ModuleList([Expert(d_model, d_ff) for _ in range(n_experts)])

    def forward(self, x):
        tokens = x.reshape(-1, x.shape[-1])
        choice = self.gate(tokens).argmax(dim=-1)
        out = torch.zeros_like(tokens)
        for index, expert in enumerate(self.experts):
            picked = torch.nonzero(choice == index).squeeze(-1)  # SFX401: data-dependent size
            out[picked] = expert(tokens[picked])
        return out.reshape(x.shape)
