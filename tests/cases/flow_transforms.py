"""Normalizing flows built on torch.distributions: torch's TransformedDistribution calls the
transforms' `_inverse` (log_prob) and `_call` (rsample), where the breaks are."""
import torch
import torch.nn as nn
from torch.distributions import Normal, Transform, TransformedDistribution, constraints


class IdentityOutside(Transform):
    """Softsign inside [-bound, bound], the identity outside, copied by a boolean mask."""

    domain = constraints.real
    codomain = constraints.real
    bijective = True

    def __init__(self, bound=2.0):
        super().__init__()
        self.bound = bound

    def _call(self, x):
        outside = x.abs() > self.bound
        y = x / (1 + x.abs())
        y[outside] = x[outside]
        return y

    def _inverse(self, y):
        outside = y.abs() > self.bound
        x = y / (1 - y.abs().clamp(max=0.99))
        x[outside] = y[outside]
        return x

    def log_abs_det_jacobian(self, x, y):
        return -2 * torch.log1p(x.abs())


class ScaleShift(Transform):
    """An affine map, inverted with tensor ops only."""

    domain = constraints.real
    codomain = constraints.real
    bijective = True

    def __init__(self, scale, shift):
        super().__init__()
        self.scale = scale
        self.shift = shift

    def _call(self, x):
        return x * self.scale + self.shift

    def _inverse(self, y):
        return (y - self.shift) / self.scale

    def log_abs_det_jacobian(self, x, y):
        return torch.log(torch.abs(self.scale)).expand_as(x)


class Flow(TransformedDistribution):
    """Keeps torch's constructor: base distribution and transforms are its arguments."""

    def score(self, value):
        return self.log_prob(value).sum(-1)


class MaskedFlowDensity(nn.Module):
    def forward(self, x):
        base = Normal(torch.zeros(2), torch.ones(2), validate_args=False)
        return TransformedDistribution(base, [IdentityOutside()], validate_args=False).log_prob(x)


class AffineFlowDensity(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.full((2,), 2.0))
        self.shift = nn.Parameter(torch.zeros(2))

    def forward(self, x):
        base = Normal(torch.zeros(2), torch.ones(2), validate_args=False)
        flow = TransformedDistribution(base, [ScaleShift(self.scale, self.shift)], validate_args=False)
        return flow.log_prob(x)


class MaskedFlowScore(nn.Module):
    def forward(self, x):
        base = Normal(torch.zeros(2), torch.ones(2), validate_args=False)
        return Flow(base, IdentityOutside(), validate_args=False).score(x)


class AffineFlowScore(nn.Module):
    def forward(self, x):
        base = Normal(torch.zeros(2), torch.ones(2), validate_args=False)
        return Flow(base, ScaleShift(torch.full((2,), 2.0), torch.zeros(2)), validate_args=False).score(x)


class MaskedFlowSampler(nn.Module):
    def forward(self, loc):
        base = Normal(loc, torch.ones_like(loc), validate_args=False)
        return TransformedDistribution(base, [IdentityOutside(0.5)], validate_args=False).rsample() + loc


class AffineFlowSampler(nn.Module):
    def forward(self, loc):
        base = Normal(loc, torch.ones_like(loc), validate_args=False)
        return TransformedDistribution(base, [ScaleShift(2.0, 1.0)], validate_args=False).rsample() + loc


CASES = [
    ("MaskedFlowDensity", lambda: MaskedFlowDensity(), lambda: (torch.randn(5, 2) * 3,)),
    ("AffineFlowDensity", lambda: AffineFlowDensity(), lambda: (torch.randn(5, 2),)),
    ("MaskedFlowScore", lambda: MaskedFlowScore(), lambda: (torch.randn(5, 2) * 3,)),
    ("AffineFlowScore", lambda: AffineFlowScore(), lambda: (torch.randn(5, 2),)),
    ("MaskedFlowSampler", lambda: MaskedFlowSampler(), lambda: (torch.randn(5, 2),)),
    ("AffineFlowSampler", lambda: AffineFlowSampler(), lambda: (torch.randn(5, 2),)),
]
