"""An Euler sampler with "churn" (k-diffusion's sample_euler): `gamma` is picked by a test on a
tensor (`s_tmin <= sigmas[i] <= s_tmax`), and `if gamma > 0:` adds noise to the sample. Both
branches leave the sample's shape as it was, so whichever the data picks the denoiser sees the
same shapes: one compile. The near miss: a branch that would double the batch, never taken here
(the sigmas stay below s_tmin); the replay cannot tell, and claims nothing."""
import torch
import torch.nn as nn


class Denoiser(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.net = nn.Linear(width, width)

    def forward(self, x, sigma):
        return self.net(x) * sigma[:, None]


def sample(s_churn, s_tmin, double):
    torch.manual_seed(0)
    model = torch.compile(Denoiser())
    sigmas = torch.linspace(1.0, 0.1, 5)
    x = torch.randn(2, 8)
    s_in = x.new_ones([x.shape[0]])
    with torch.no_grad():
        for i in range(4):
            gamma = min(s_churn / 4, 0.4) if s_tmin <= sigmas[i] <= 10.0 else 0.
            sigma_hat = sigmas[i] * (gamma + 1)
            if gamma > 0:
                x = torch.cat([x, x]) if double else x + torch.randn_like(x) * gamma
            denoised = model(x, sigma_hat * s_in)
            x = x + (x - denoised) * 0.1


def churn():
    sample(1.0, 0.0, False)


def churn_never_doubling():
    sample(1.0, 5.0, True)


RECOMPILE_CASES = [
    ("churn", churn),
    ("churn_never_doubling", churn_never_doubling),
]
