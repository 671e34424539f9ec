"""Time conditioning from diffusers' embeddings, with its feed-forward."""
import torch
from torch import nn
from diffusers.models.attention import FeedForward
from diffusers.models.embeddings import TimestepEmbedding, Timesteps


class TimeConditioned(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.time_proj = Timesteps(dim, flip_sin_to_cos=True, downscale_freq_shift=0)
        self.time_embed = TimestepEmbedding(dim, dim)
        self.ff = FeedForward(dim, mult=2)

    def forward(self, x, timesteps):
        emb = self.time_embed(self.time_proj(timesteps))
        return self.ff(x + emb[:, None, :])
