"""Euler-discrete (Karras et al. 2022) sampling for an epsilon-prediction denoiser, k-diffusion style.

`EulerDiscreteScheduler` converts the DDPM alphas into a sigma schedule, rescales the model input
by 1/sqrt(sigma^2 + 1) and integrates the probability-flow ODE with explicit Euler steps.
`get_ancestral_step` splits a step into its deterministic and its noise-injection part.
"""
import logging

import torch
import torch.nn as nn

logger = logging.getLogger(__name__)


@torch.compile
def get_ancestral_step(sigma_from, sigma_to, eta=1.0):
    """Calculates the noise level (sigma_down) to step down to and the amount of noise to add."""
    if not eta:
        return sigma_to, 0.0
    sigma_up = min(sigma_to, eta * (sigma_to ** 2 * (sigma_from ** 2 - sigma_to ** 2) / sigma_from ** 2) ** 0.5)
    sigma_down = (sigma_to ** 2 - sigma_up ** 2) ** 0.5
    return sigma_down, sigma_up


class EulerDiscreteScheduler:
    def __init__(self, num_train_timesteps=1000, beta_start=0.00085, beta_end=0.012):
        betas = torch.linspace(beta_start ** 0.5, beta_end ** 0.5, num_train_timesteps) ** 2
        alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)
        self.train_sigmas = ((1 - alphas_cumprod) / alphas_cumprod) ** 0.5
        self.num_train_timesteps = num_train_timesteps

    def set_timesteps(self, num_inference_steps):
        self.timesteps = torch.linspace(0, self.num_train_timesteps - 1, num_inference_steps).flip(0).round()
        sigmas = self.train_sigmas[self.timesteps.long()]
        self.sigmas = torch.cat([sigmas, sigmas.new_zeros(1)])

    @staticmethod
    def index_for_timestep(timestep, schedule_timesteps):
        indices = (schedule_timesteps == timestep).nonzero()
        pos = 1 if len(indices) > 1 else 0
        return indices[pos].item()

    def scale_model_input(self, sample, timestep):
        sigma = self.sigmas[self.index_for_timestep(timestep, self.timesteps)]
        return sample / ((sigma ** 2 + 1) ** 0.5)

    def step(self, model_output, timestep, sample):
        step_index = self.index_for_timestep(timestep, self.timesteps)
        sigma, sigma_next = self.sigmas[step_index], self.sigmas[step_index + 1]
        pred_original_sample = sample - sigma * model_output
        derivative = (sample - pred_original_sample) / sigma
        return sample + derivative * (sigma_next - sigma)


class EpsilonMLP(nn.Module):
    def __init__(self, dim=6, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim + 1, hidden), nn.SiLU(), nn.Linear(hidden, dim))

    def forward(self, x, t):
        return self.net(torch.cat([x, (t / 1000.0).expand(x.shape[0], 1)], dim=-1))


class EulerPipeline(nn.Module):
    def __init__(self, num_inference_steps=3):
        super().__init__()
        self.unet = EpsilonMLP()
        self.scheduler = EulerDiscreteScheduler()
        self.num_inference_steps = num_inference_steps

    def forward(self, noise):
        self.scheduler.set_timesteps(self.num_inference_steps)
        logger.info("Running %d Euler steps", self.num_inference_steps)
        latents = noise * self.scheduler.sigmas.max()
        for t in self.scheduler.timesteps:
            model_input = self.scheduler.scale_model_input(latents, t)
            noise_pred = self.unet(model_input, t)
            latents = self.scheduler.step(noise_pred, t, latents)
        return latents


CASES = [
    ("EulerPipeline", EulerPipeline, lambda: (torch.randn(2, 6),)),
    ("get_ancestral_step", lambda: get_ancestral_step, lambda: (torch.tensor(14.6), torch.tensor(7.2))),
]
