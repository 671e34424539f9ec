"""k-diffusion (crowsonkb/k-diffusion: sampling.py sample_euler, layers.Denoiser) around a tiny
denoiser: the compiled Karras preconditioner is called with sigma as a tensor (sigma_hat * s_in)
at every Euler step; a second sampling run uses another batch size."""

import torch
from torch import nn


def append_dims(x, target_dims):
    dims_to_append = target_dims - x.ndim
    if dims_to_append < 0:
        raise ValueError(f'input has {x.ndim} dims but target_dims is {target_dims}, which is less')
    return x[(...,) + (None,) * dims_to_append]


def append_zero(x):
    return torch.cat([x, x.new_zeros([1])])


def get_sigmas_karras(n, sigma_min, sigma_max, rho=7., device='cpu'):
    ramp = torch.linspace(0, 1, n)
    min_inv_rho = sigma_min ** (1 / rho)
    max_inv_rho = sigma_max ** (1 / rho)
    sigmas = (max_inv_rho + ramp * (min_inv_rho - max_inv_rho)) ** rho
    return append_zero(sigmas).to(device)


def to_d(x, sigma, denoised):
    return (x - denoised) / append_dims(sigma, x.ndim)


class InnerModel(nn.Module):
    def __init__(self, channels=3):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.emb = nn.Linear(1, channels)

    def forward(self, input, sigma):
        c_noise = sigma.log() / 4
        return self.conv(input) + self.emb(c_noise[:, None])[:, :, None, None]


class Denoiser(nn.Module):
    def __init__(self, inner_model, sigma_data=1., weighting='karras', scales=1):
        super().__init__()
        self.inner_model = inner_model
        self.sigma_data = sigma_data
        self.scales = scales
        if weighting == 'karras':
            self.weighting = torch.ones_like
        else:
            raise ValueError(f'Unknown weighting type {weighting}')

    def get_scalings(self, sigma):
        c_skip = self.sigma_data ** 2 / (sigma ** 2 + self.sigma_data ** 2)
        c_out = sigma * self.sigma_data / (sigma ** 2 + self.sigma_data ** 2) ** 0.5
        c_in = 1 / (sigma ** 2 + self.sigma_data ** 2) ** 0.5
        return c_skip, c_out, c_in

    def forward(self, input, sigma, **kwargs):
        c_skip, c_out, c_in = [append_dims(x, input.ndim) for x in self.get_scalings(sigma)]
        return self.inner_model(input * c_in, sigma, **kwargs) * c_out + input * c_skip


@torch.no_grad()
def sample_euler(model, x, sigmas, extra_args=None, s_churn=0., s_tmin=0., s_tmax=float('inf'), s_noise=1.):
    extra_args = {} if extra_args is None else extra_args
    s_in = x.new_ones([x.shape[0]])
    for i in range(len(sigmas) - 1):
        gamma = min(s_churn / (len(sigmas) - 1), 2 ** 0.5 - 1) if s_tmin <= sigmas[i] <= s_tmax else 0.
        eps = torch.randn_like(x) * s_noise
        sigma_hat = sigmas[i] * (gamma + 1)
        if gamma > 0:
            x = x + eps * (sigma_hat ** 2 - sigmas[i] ** 2) ** 0.5
        denoised = model(x, sigma_hat * s_in, **extra_args)
        d = to_d(x, sigma_hat, denoised)
        dt = sigmas[i + 1] - sigma_hat
        x = x + d * dt
    return x


def euler_steps():
    torch.manual_seed(0)
    model = torch.compile(Denoiser(InnerModel(), sigma_data=0.5))
    sigmas = get_sigmas_karras(6, 0.03, 14.6)
    x = torch.randn(2, 3, 8, 8) * sigmas[0]
    sample_euler(model, x, sigmas)


def euler_churn():
    torch.manual_seed(0)
    model = torch.compile(Denoiser(InnerModel(), sigma_data=0.5))
    sigmas = get_sigmas_karras(6, 0.03, 14.6)
    x = torch.randn(2, 3, 8, 8) * sigmas[0]
    sample_euler(model, x, sigmas, s_churn=1.0)


def two_batch_sizes():
    torch.manual_seed(0)
    model = torch.compile(Denoiser(InnerModel(), sigma_data=0.5))
    sigmas = get_sigmas_karras(4, 0.03, 14.6)
    for batch in (2, 4):
        x = torch.randn(batch, 3, 8, 8) * sigmas[0]
        sample_euler(model, x, sigmas)


RECOMPILE_CASES = [
    ("euler_steps", euler_steps),
    ("euler_churn", euler_churn),
    ("two_batch_sizes", two_batch_sizes),
]
