"""Highway-style gated residual network built from closures over its layers."""
import torch
import torch.nn as nn


class GatedResidualNetwork(nn.Module):
    def __init__(self, dim=16, context_dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.context = nn.Linear(context_dim, dim, bias=False)
        self.gate = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x, context=None):
        def transform(h):
            if context is not None:
                h = h + self.context(context)
            h = torch.nn.functional.elu(self.fc(h))
            g = torch.sigmoid(self.gate(h))
            if g.mean() < 0.01:
                return h
            return g * h

        return self.norm(x + transform(x))


CASES = [
    ("GatedResidualNetwork", GatedResidualNetwork, lambda: (torch.randn(4, 16), torch.randn(4, 8))),
    ("GatedResidualNetwork-nocontext", GatedResidualNetwork, lambda: (torch.randn(4, 16),)),
]
