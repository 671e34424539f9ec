"""A flow assembled from zuko's parts (README "custom flows"), and a continuous flow."""
import torch
import torch.nn as nn
import zuko
from zuko.flows import Flow, MaskedAutoregressiveTransform, UnconditionalDistribution
from zuko.distributions import DiagNormal


class AssembledFlow(nn.Module):
    def __init__(self):
        super().__init__()
        self.flow = Flow(
            transform=[MaskedAutoregressiveTransform(3, 2, hidden_features=(16,)),
                       MaskedAutoregressiveTransform(3, 2, hidden_features=(16,))],
            base=UnconditionalDistribution(DiagNormal, torch.zeros(3), torch.ones(3), buffer=True))

    def forward(self, x, c):
        return self.flow(c).log_prob(x)


class GaussianMixture(nn.Module):
    def __init__(self):
        super().__init__()
        self.gmm = zuko.flows.GMM(features=2, context=3, components=3, hidden_features=[8])

    def forward(self, x, c):
        return self.gmm(c).log_prob(x)


CASES = [
    ("AssembledFlow", lambda: AssembledFlow(), lambda: (torch.randn(5, 3), torch.randn(5, 2))),
    ("GaussianMixture", lambda: GaussianMixture(), lambda: (torch.randn(5, 2), torch.randn(5, 3))),
]
