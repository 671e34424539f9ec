"""A mixture of experts whose tokens are gathered with nonzero(): the layer runs eagerly and
each expert's forward is a frame of its own; the experts see different token counts, so the
expert's frame compiles twice (the second count makes the token dimension dynamic)."""
import torch
import torch.nn as nn


class Expert(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(width, 32), nn.ReLU(), nn.Linear(32, width))

    def forward(self, x):
        return self.net(x)


class MoE(nn.Module):
    def __init__(self, width: int = 16, experts: int = 4):
        super().__init__()
        self.gate = nn.Linear(width, experts)
        self.experts = nn.ModuleList([Expert(width) for _ in range(experts)])

    def forward(self, x):
        choice = self.gate(x).argmax(dim=-1)
        out = torch.zeros_like(x)
        for index, expert in enumerate(self.experts):
            picked = torch.nonzero(choice == index).squeeze(-1)
            out[picked] = expert(x[picked])
        return out


def routed_tokens():
    model = torch.compile(MoE())
    model(torch.randn(64, 16))


RECOMPILE_CASES = [
    ("routed_tokens", routed_tokens),
]
