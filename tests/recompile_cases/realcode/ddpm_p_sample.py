"""denoising-diffusion-pytorch (lucidrains, GaussianDiffusion.p_sample / p_sample_loop) with a
tiny noise predictor and the 'pred_noise' objective: the sampling step compiled as a bound
method and called with the timestep as a Python int counting down to 0; and the same loop
with only the noise predictor compiled (it sees the timestep as a tensor)."""
from collections import namedtuple
from functools import partial

import torch
import torch.nn.functional as F
from torch import nn

ModelPrediction = namedtuple('ModelPrediction', ['pred_noise', 'pred_x_start'])


def identity(t, *args, **kwargs):
    return t


def extract(a, t, x_shape):
    b, *_ = t.shape
    out = a.gather(-1, t)
    return out.reshape(b, *((1,) * (len(x_shape) - 1)))


def linear_beta_schedule(timesteps):
    scale = 1000 / timesteps
    beta_start = scale * 0.0001
    beta_end = scale * 0.02
    return torch.linspace(beta_start, beta_end, timesteps, dtype=torch.float64)


class TinyUnet(nn.Module):
    def __init__(self, channels=3, dim=8):
        super().__init__()
        self.channels = channels
        self.self_condition = False
        self.time_mlp = nn.Linear(1, dim)
        self.conv_in = nn.Conv2d(channels, dim, 3, padding=1)
        self.conv_out = nn.Conv2d(dim, channels, 3, padding=1)

    def forward(self, x, time, x_self_cond=None):
        t = self.time_mlp(time.float()[:, None] / 1000)[:, :, None, None]
        return self.conv_out(F.silu(self.conv_in(x) + t))


class GaussianDiffusion(nn.Module):
    def __init__(self, model, *, image_size, timesteps=1000, objective='pred_noise'):
        super().__init__()
        self.model = model
        self.channels = self.model.channels
        self.self_condition = self.model.self_condition
        self.image_size = image_size
        self.objective = objective
        betas = linear_beta_schedule(timesteps)
        alphas = 1. - betas
        alphas_cumprod = torch.cumprod(alphas, dim=0)
        alphas_cumprod_prev = F.pad(alphas_cumprod[:-1], (1, 0), value=1.)
        self.num_timesteps = int(timesteps)
        register_buffer = lambda name, val: self.register_buffer(name, val.to(torch.float32))
        register_buffer('betas', betas)
        register_buffer('alphas_cumprod', alphas_cumprod)
        register_buffer('sqrt_recip_alphas_cumprod', torch.sqrt(1. / alphas_cumprod))
        register_buffer('sqrt_recipm1_alphas_cumprod', torch.sqrt(1. / alphas_cumprod - 1))
        posterior_variance = betas * (1. - alphas_cumprod_prev) / (1. - alphas_cumprod)
        register_buffer('posterior_variance', posterior_variance)
        register_buffer('posterior_log_variance_clipped', torch.log(posterior_variance.clamp(min=1e-20)))
        register_buffer('posterior_mean_coef1', betas * torch.sqrt(alphas_cumprod_prev) / (1. - alphas_cumprod))
        register_buffer('posterior_mean_coef2', (1. - alphas_cumprod_prev) * torch.sqrt(alphas) / (1. - alphas_cumprod))

    @property
    def device(self):
        return self.betas.device

    def predict_start_from_noise(self, x_t, t, noise):
        return (
            extract(self.sqrt_recip_alphas_cumprod, t, x_t.shape) * x_t -
            extract(self.sqrt_recipm1_alphas_cumprod, t, x_t.shape) * noise
        )

    def q_posterior(self, x_start, x_t, t):
        posterior_mean = (
            extract(self.posterior_mean_coef1, t, x_t.shape) * x_start +
            extract(self.posterior_mean_coef2, t, x_t.shape) * x_t
        )
        posterior_variance = extract(self.posterior_variance, t, x_t.shape)
        posterior_log_variance_clipped = extract(self.posterior_log_variance_clipped, t, x_t.shape)
        return posterior_mean, posterior_variance, posterior_log_variance_clipped

    def model_predictions(self, x, t, x_self_cond=None, clip_x_start=False):
        model_output = self.model(x, t, x_self_cond)
        maybe_clip = partial(torch.clamp, min=-1., max=1.) if clip_x_start else identity
        pred_noise = model_output
        x_start = self.predict_start_from_noise(x, t, pred_noise)
        x_start = maybe_clip(x_start)
        return ModelPrediction(pred_noise, x_start)

    def p_mean_variance(self, x, t, x_self_cond=None, clip_denoised=True):
        preds = self.model_predictions(x, t, x_self_cond)
        x_start = preds.pred_x_start
        if clip_denoised:
            x_start.clamp_(-1., 1.)
        model_mean, posterior_variance, posterior_log_variance = self.q_posterior(x_start=x_start, x_t=x, t=t)
        return model_mean, posterior_variance, posterior_log_variance, x_start

    @torch.inference_mode()
    def p_sample(self, x, t: int, x_self_cond=None):
        b, *_, device = *x.shape, self.device
        batched_times = torch.full((b,), t, device=device, dtype=torch.long)
        model_mean, _, model_log_variance, x_start = self.p_mean_variance(
            x=x, t=batched_times, x_self_cond=x_self_cond, clip_denoised=True)
        noise = torch.randn_like(x) if t > 0 else 0.
        pred_img = model_mean + (0.5 * model_log_variance).exp() * noise
        return pred_img, x_start


def compiled_sampling_step():
    torch.manual_seed(0)
    diffusion = GaussianDiffusion(TinyUnet(), image_size=8, timesteps=5)
    p_sample = torch.compile(diffusion.p_sample)
    img = torch.randn(2, 3, 8, 8)
    x_start = None
    with torch.inference_mode():
        for t in reversed(range(0, diffusion.num_timesteps)):
            self_cond = x_start if diffusion.self_condition else None
            img, x_start = p_sample(img, t, self_cond)


def compiled_noise_predictor():
    torch.manual_seed(0)
    diffusion = GaussianDiffusion(TinyUnet(), image_size=8, timesteps=5)
    diffusion.model = torch.compile(diffusion.model)
    img = torch.randn(2, 3, 8, 8)
    x_start = None
    for t in reversed(range(0, diffusion.num_timesteps)):
        self_cond = x_start if diffusion.self_condition else None
        img, x_start = diffusion.p_sample(img, t, self_cond)


RECOMPILE_CASES = [
    ("compiled_sampling_step", compiled_sampling_step),
    ("compiled_noise_predictor", compiled_noise_predictor),
]
