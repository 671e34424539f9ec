"""zuko flows as its README shows: flow(c).log_prob(x), flow(c).rsample()."""
import torch
import torch.nn as nn
import zuko


class ConditionalNSF(nn.Module):
    def __init__(self):
        super().__init__()
        self.flow = zuko.flows.NSF(features=3, context=5, transforms=2, hidden_features=[16, 16])

    def forward(self, x, c):
        return -self.flow(c).log_prob(x).mean()


class MAFSampler(nn.Module):
    def __init__(self):
        super().__init__()
        self.flow = zuko.flows.MAF(features=2, context=0, transforms=2, hidden_features=[16])

    def forward(self, x):
        dist = self.flow()
        return dist.log_prob(x), dist.rsample((4,))


class RealNVPDensity(nn.Module):
    def __init__(self):
        super().__init__()
        self.flow = zuko.flows.RealNVP(features=4, transforms=2, hidden_features=[16])

    def forward(self, x):
        return self.flow().log_prob(x)


CASES = [
    ("ConditionalNSF", lambda: ConditionalNSF(), lambda: (torch.randn(6, 3), torch.randn(6, 5))),
    ("MAFSampler", lambda: MAFSampler(), lambda: (torch.randn(6, 2),)),
    ("RealNVPDensity", lambda: RealNVPDensity(), lambda: (torch.randn(6, 4),)),
]
