"""pyro's normalizing-flow transforms and nets, built into tiny density models."""
import pyro.distributions as dist
import pyro.distributions.transforms as T
import torch
import torch.nn as nn
from pyro.nn import AutoRegressiveNN, DenseNN


class SplineDensity(nn.Module):
    def __init__(self):
        super().__init__()
        self.spline = T.Spline(2, count_bins=4, bound=3.0)
        self.register_buffer("zero", torch.zeros(2))

    def forward(self, x):
        base = dist.Normal(self.zero, torch.ones_like(self.zero))
        return dist.TransformedDistribution(base, [self.spline]).log_prob(x)


class IAFDensity(nn.Module):
    def __init__(self):
        super().__init__()
        self.iaf = T.AffineAutoregressive(AutoRegressiveNN(3, [8]))

    def forward(self, x):
        base = dist.Normal(torch.zeros(3), torch.ones(3)).to_event(1)
        return dist.TransformedDistribution(base, [self.iaf]).log_prob(x)


class ConditionalNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = DenseNN(4, [8], param_dims=[2, 2])

    def forward(self, x):
        loc, log_scale = self.net(x)
        return dist.Normal(loc, log_scale.exp()).rsample()


CASES = [
    ("SplineDensity", lambda: SplineDensity(), lambda: (torch.randn(5, 2),)),
    ("IAFDensity", lambda: IAFDensity(), lambda: (torch.randn(5, 3),)),
    ("ConditionalNet", lambda: ConditionalNet(), lambda: (torch.randn(5, 4),)),
]
