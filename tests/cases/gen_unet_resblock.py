"""UNet2D building blocks (diffusers style): a ResnetBlock2D conditioned on timestep embeddings.

The block supports the "default" (additive) and "scale_shift" time-embedding norms, an optional
1x1 conv shortcut when the channel count changes, and an output scale factor used by the
latent-diffusion UNets.
"""
import math

import torch
import torch.nn.functional as F
from torch import nn

from .gen_blocks import TimestepEmbedding, get_timestep_embedding


class ResnetBlock2D(nn.Module):
    def __init__(self, in_channels, out_channels=None, temb_channels=32, groups=4, dropout=0.0,
                 time_embedding_norm="default", output_scale_factor=1.0, use_in_shortcut=None):
        super().__init__()
        out_channels = in_channels if out_channels is None else out_channels
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.time_embedding_norm = time_embedding_norm
        self.output_scale_factor = output_scale_factor

        self.norm1 = nn.GroupNorm(groups, in_channels, eps=1e-6)
        self.conv1 = nn.Conv2d(in_channels, out_channels, 3, padding=1)
        if temb_channels is not None:
            proj_dim = 2 * out_channels if time_embedding_norm == "scale_shift" else out_channels
            self.time_emb_proj = nn.Linear(temb_channels, proj_dim)
        else:
            self.time_emb_proj = None
        self.norm2 = nn.GroupNorm(groups, out_channels, eps=1e-6)
        self.dropout = nn.Dropout(dropout)
        self.conv2 = nn.Conv2d(out_channels, out_channels, 3, padding=1)
        self.use_in_shortcut = (in_channels != out_channels) if use_in_shortcut is None else use_in_shortcut
        self.conv_shortcut = nn.Conv2d(in_channels, out_channels, 1) if self.use_in_shortcut else None

    def forward(self, input_tensor, temb=None):
        hidden_states = F.silu(self.norm1(input_tensor))
        if hidden_states.shape[0] >= 64:
            hidden_states = hidden_states.contiguous()
        hidden_states = self.conv1(hidden_states)

        if self.time_emb_proj is not None and temb is not None:
            temb = self.time_emb_proj(F.silu(temb))[:, :, None, None]
        if temb is not None and self.time_embedding_norm == "default":
            hidden_states = hidden_states + temb
        hidden_states = self.norm2(hidden_states)
        if temb is not None and self.time_embedding_norm == "scale_shift":
            scale, shift = torch.chunk(temb, 2, dim=1)
            hidden_states = hidden_states * (1 + scale) + shift

        hidden_states = self.conv2(self.dropout(F.silu(hidden_states)))
        if self.conv_shortcut is not None:
            input_tensor = self.conv_shortcut(input_tensor.contiguous())
        return (input_tensor + hidden_states) / self.output_scale_factor


class TinyUNetMidBlock(nn.Module):
    def __init__(self, in_channels=8, block_out_channels=(16, 16), time_embedding_norm="default"):
        super().__init__()
        self.time_proj_dim = block_out_channels[0]
        temb_dim = self.time_proj_dim * 4
        self.time_embedding = TimestepEmbedding(self.time_proj_dim, temb_dim)
        channels = [in_channels, *block_out_channels]
        self.resnets = nn.ModuleList(
            ResnetBlock2D(c_in, c_out, temb_channels=temb_dim, time_embedding_norm=time_embedding_norm,
                          output_scale_factor=math.sqrt(2.0))
            for c_in, c_out in zip(channels[:-1], channels[1:])
        )

    def forward(self, sample, timestep):
        if not torch.is_tensor(timestep):
            timestep = torch.tensor([timestep], dtype=torch.long, device=sample.device)
        elif timestep.dim() == 0:
            timestep = timestep[None].to(sample.device)
        timestep = timestep.expand(sample.shape[0])
        t_emb = get_timestep_embedding(timestep, self.time_proj_dim, flip_sin_to_cos=True, downscale_freq_shift=0)
        emb = self.time_embedding(t_emb.to(dtype=sample.dtype))
        for resnet in self.resnets:
            sample = resnet(sample, emb)
        return sample


CASES = [
    ("TinyUNetMidBlock", TinyUNetMidBlock, lambda: (torch.randn(2, 8, 8, 8), torch.tensor(10))),
    ("TinyUNetMidBlock-scale_shift", lambda: TinyUNetMidBlock(time_embedding_norm="scale_shift"),
     lambda: (torch.randn(2, 8, 8, 8), torch.tensor([3, 700]))),
]
