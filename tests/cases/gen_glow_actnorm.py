"""Multi-step Glow for image latents with data-dependent ActNorm initialisation.

ActNorm keeps an `initialized` buffer so that the first training batch sets the per-channel
statistics and the flag survives `state_dict` round trips. The flow ends in a learned isotropic
Gaussian prior whose scale is a log-parameterised scalar.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

logabs = lambda x: torch.log(torch.abs(x))


class ActNorm2d(nn.Module):
    def __init__(self, in_channel):
        super().__init__()
        self.loc = nn.Parameter(torch.zeros(1, in_channel, 1, 1))
        self.scale = nn.Parameter(torch.ones(1, in_channel, 1, 1))
        self.register_buffer("initialized", torch.tensor(0, dtype=torch.uint8))

    def initialize(self, x):
        with torch.no_grad():
            flatten = x.permute(1, 0, 2, 3).contiguous().view(x.shape[1], -1)
            mean = flatten.mean(1).view(1, -1, 1, 1)
            std = flatten.std(1).view(1, -1, 1, 1)
            self.loc.data.copy_(-mean)
            self.scale.data.copy_(1 / (std + 1e-6))

    def forward(self, x):
        _, _, height, width = x.shape
        if self.initialized.item() == 0:
            self.initialize(x)
            self.initialized.fill_(1)
        logdet = height * width * torch.sum(logabs(self.scale))
        return self.scale * (x + self.loc), logdet


class InvConv2d(nn.Module):
    def __init__(self, in_channel):
        super().__init__()
        q, _ = torch.linalg.qr(torch.randn(in_channel, in_channel))
        self.weight = nn.Parameter(q.unsqueeze(2).unsqueeze(3))

    def forward(self, x):
        _, _, height, width = x.shape
        out = F.conv2d(x, self.weight)
        logdet = height * width * torch.slogdet(self.weight.squeeze().double())[1].float()
        return out, logdet


class FlowStep(nn.Module):
    def __init__(self, in_channel, hidden=16):
        super().__init__()
        self.actnorm = ActNorm2d(in_channel)
        self.invconv = InvConv2d(in_channel)
        self.coupling = nn.Sequential(
            nn.Conv2d(in_channel // 2, hidden, 3, padding=1), nn.ReLU(), nn.Conv2d(hidden, in_channel, 3, padding=1)
        )

    def forward(self, x):
        x, logdet = self.actnorm(x)
        x, det1 = self.invconv(x)
        in_a, in_b = x.chunk(2, 1)
        log_s, t = self.coupling(in_a).chunk(2, 1)
        s = torch.sigmoid(log_s + 2)
        out_b = (in_b + t) * s
        logdet = logdet + det1 + torch.sum(torch.log(s).view(x.shape[0], -1), 1)
        return torch.cat([in_a, out_b], 1), logdet


class LearnedPrior(nn.Module):
    def __init__(self):
        super().__init__()
        self.log_sigma = nn.Parameter(torch.zeros(()))

    @property
    def sigma(self):
        return float(self.log_sigma.exp())

    def forward(self, z):
        return (-0.5 * z.pow(2) / self.sigma ** 2 - math.log(self.sigma * math.sqrt(2 * math.pi))).flatten(1).sum(1)


class Glow(nn.Module):
    def __init__(self, in_channel=4, n_flow=2):
        super().__init__()
        self.flows = nn.ModuleList(FlowStep(in_channel) for _ in range(n_flow))
        self.prior = LearnedPrior()

    def forward(self, x):
        logdet = 0
        for flow in self.flows:
            x, det = flow(x)
            logdet = logdet + det
        log_p = self.prior(x)
        n_pixel = x[0].numel()
        return (-(log_p + logdet) / (math.log(2) * n_pixel)).mean(), x


CASES = [("Glow", Glow, lambda: (torch.randn(3, 4, 4, 4),))]
