"""Probabilistic heads whose forward returns a pyro distribution's log_prob."""
import pyro.distributions as dist
import torch
import torch.nn as nn
import torch.nn.functional as F


class GaussianHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 6)

    def forward(self, x, y):
        loc, raw_scale = self.fc(x).chunk(2, dim=-1)
        return dist.Normal(loc, F.softplus(raw_scale)).to_event(1).log_prob(y)


class CountHead(nn.Module):
    """Zero-inflated negative binomial likelihood for counts."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 3)

    def forward(self, x, counts):
        a, b, c = self.fc(x).unbind(-1)
        d = dist.ZeroInflatedNegativeBinomial(total_count=F.softplus(a) + 1, logits=b, gate_logits=c)
        return d.log_prob(counts).sum()


class MixtureHead(nn.Module):
    def __init__(self, k=3):
        super().__init__()
        self.k = k
        self.fc = nn.Linear(8, 3 * k)

    def forward(self, x, y):
        logits, loc, raw = self.fc(x).split(self.k, dim=-1)
        mix = dist.MixtureOfDiagNormals(loc.unsqueeze(-1), F.softplus(raw).unsqueeze(-1), logits)
        return mix.log_prob(y.unsqueeze(-1))


CASES = [
    ("GaussianHead", lambda: GaussianHead(), lambda: (torch.randn(4, 8), torch.randn(4, 3))),
    ("CountHead", lambda: CountHead(), lambda: (torch.randn(4, 8), torch.tensor([0.0, 2.0, 0.0, 5.0]))),
    ("MixtureHead", lambda: MixtureHead(), lambda: (torch.randn(4, 8), torch.randn(4))),
]
