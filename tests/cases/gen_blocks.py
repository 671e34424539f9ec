"""Building blocks shared by the generative audio / image models of this package.

Timestep embeddings, normalisation helpers and the length utilities used by the
non-autoregressive TTS decoders.
"""
import math

import torch
import torch.nn.functional as F
from torch import nn


def get_timestep_embedding(timesteps, embedding_dim, flip_sin_to_cos=False, downscale_freq_shift=1.0,
                           max_period=10000):
    """Sinusoidal timestep embeddings, as in the DDPM reference implementation."""
    assert timesteps.dim() == 1, "Timesteps should be a 1d-array"
    half_dim = embedding_dim // 2
    exponent = -math.log(max_period) * torch.arange(half_dim, dtype=torch.float32, device=timesteps.device)
    exponent = exponent / (half_dim - downscale_freq_shift)
    emb = timesteps[:, None].float() * torch.exp(exponent)[None, :]
    emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=-1)
    if flip_sin_to_cos:
        emb = torch.cat([emb[:, half_dim:], emb[:, :half_dim]], dim=-1)
    if embedding_dim % 2 == 1:
        emb = F.pad(emb, (0, 1, 0, 0))
    return emb


class TimestepEmbedding(nn.Module):
    def __init__(self, in_channels, time_embed_dim, act_fn=nn.SiLU):
        super().__init__()
        self.linear_1 = nn.Linear(in_channels, time_embed_dim)
        self.act = act_fn()
        self.linear_2 = nn.Linear(time_embed_dim, time_embed_dim)

    def forward(self, sample):
        return self.linear_2(self.act(self.linear_1(sample)))


def sequence_mask(lengths, max_length=None):
    """Boolean mask of shape (batch, max_length) that is True on valid frames."""
    if max_length is None:
        max_length = lengths.max()
    positions = torch.arange(max_length, device=lengths.device)
    return positions[None, :] < lengths[:, None]


def expand_by_duration(hidden, durations):
    """Repeat every encoder frame by its (integer) duration: the FastSpeech length regulator."""
    expanded = [torch.repeat_interleave(h, d, dim=0) for h, d in zip(hidden, durations)]
    return nn.utils.rnn.pad_sequence(expanded, batch_first=True)


def pad_or_trim(x, length, dim=-1):
    """Zero-pad or cut `x` along `dim` to exactly `length` samples."""
    current = x.shape[dim]
    if current > length:
        return x.narrow(dim, 0, length)
    if current < length:
        pad = [0, 0] * (x.dim() - 1 - (dim % x.dim())) + [0, length - current]
        return F.pad(x, pad)
    return x
