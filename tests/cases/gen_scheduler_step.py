"""DDIM scheduler and a tiny unconditional sampling pipeline.

The scheduler follows the diffusers API: `set_timesteps` picks the inference timesteps with a
"leading" spacing and `step` computes x_{t-1} from the model output (epsilon or v prediction),
with optional clipping of the predicted x_0.
"""
import copy
import dataclasses

import numpy as np
import torch
import torch.nn as nn


@dataclasses.dataclass
class SchedulerConfig:
    num_train_timesteps: int = 1000
    beta_start: float = 0.0001
    beta_end: float = 0.02
    prediction_type: str = "epsilon"
    clip_sample: bool = True
    clip_sample_range: float = 1.0


class DDIMScheduler:
    def __init__(self, config):
        self.config = config
        betas = torch.linspace(config.beta_start ** 0.5, config.beta_end ** 0.5, config.num_train_timesteps) ** 2
        self.alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)
        self.final_alpha_cumprod = torch.tensor(1.0)
        self.num_inference_steps = None
        self.timesteps = np.arange(0, config.num_train_timesteps)[::-1].copy()

    def set_timesteps(self, num_inference_steps):
        self.num_inference_steps = num_inference_steps
        step_ratio = self.config.num_train_timesteps // num_inference_steps
        timesteps = (np.arange(0, num_inference_steps) * step_ratio).round()[::-1].copy()
        self.timesteps = timesteps.astype(np.int64).tolist()

    def step(self, model_output, timestep, sample, eta=0.0):
        prev_timestep = timestep - self.config.num_train_timesteps // self.num_inference_steps
        alpha_prod_t = self.alphas_cumprod[timestep]
        alpha_prod_t_prev = self.alphas_cumprod[prev_timestep] if prev_timestep >= 0 else self.final_alpha_cumprod
        beta_prod_t = 1 - alpha_prod_t

        if self.config.prediction_type == "epsilon":
            pred_original_sample = (sample - beta_prod_t ** 0.5 * model_output) / alpha_prod_t ** 0.5
            pred_epsilon = model_output
        elif self.config.prediction_type == "v_prediction":
            pred_original_sample = alpha_prod_t ** 0.5 * sample - beta_prod_t ** 0.5 * model_output
            pred_epsilon = alpha_prod_t ** 0.5 * model_output + beta_prod_t ** 0.5 * sample
        else:
            raise ValueError(f"prediction_type given as {self.config.prediction_type} must be one of "
                             "`epsilon` or `v_prediction`")

        if self.config.clip_sample:
            limit = self.config.clip_sample_range
            pred_original_sample = pred_original_sample.clamp(-limit, limit)
        direction = (1 - alpha_prod_t_prev) ** 0.5 * pred_epsilon
        return alpha_prod_t_prev ** 0.5 * pred_original_sample + direction


class DenoiserMLP(nn.Module):
    def __init__(self, dim=6, hidden=24):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim + 1, hidden), nn.SiLU(), nn.Linear(hidden, dim))

    def forward(self, x, t):
        t = torch.full((x.shape[0], 1), t / 1000.0, dtype=x.dtype)
        return self.net(torch.cat([x, t], dim=1))


class DDIMPipeline(nn.Module):
    def __init__(self, num_inference_steps=4, **config_overrides):
        super().__init__()
        self.unet = DenoiserMLP()
        self.config = SchedulerConfig(**config_overrides)
        self.num_inference_steps = num_inference_steps

    def forward(self, latents):
        scheduler = DDIMScheduler(copy.deepcopy(self.config))
        scheduler.set_timesteps(self.num_inference_steps)
        for t in scheduler.timesteps:
            noise_pred = self.unet(latents, t)
            latents = scheduler.step(noise_pred, t, latents)
        return latents


CASES = [
    ("DDIMPipeline", DDIMPipeline, lambda: (torch.randn(3, 6),)),
    ("DDIMPipeline-v", lambda: DDIMPipeline(prediction_type="v_prediction", clip_sample=False),
     lambda: (torch.randn(3, 6),)),
]
