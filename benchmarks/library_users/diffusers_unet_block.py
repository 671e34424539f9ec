"""A down-up block of a toy UNet from diffusers' resnet blocks."""
import torch
from torch import nn
from diffusers.models.downsampling import Downsample2D
from diffusers.models.resnet import ResnetBlock2D
from diffusers.models.upsampling import Upsample2D


class DownUp(nn.Module):
    def __init__(self, channels=32, temb_channels=64):
        super().__init__()
        self.res = ResnetBlock2D(in_channels=channels, temb_channels=temb_channels, groups=8)
        self.down = Downsample2D(channels, use_conv=True)
        self.up = Upsample2D(channels, use_conv=True)

    def forward(self, x, temb):
        h = self.res(x, temb)
        return self.up(self.down(h)) + x
