"""Discrete-continuous convolutions on the sphere and resampling, tiny."""
import torch
import torch.nn as nn
import torch_harmonics as th


class DiscoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = th.DiscreteContinuousConvS2(2, 4, in_shape=(8, 16), out_shape=(8, 16), kernel_shape=(3,),
                                                grid_in="equiangular", grid_out="equiangular")

    def forward(self, x):
        return self.conv(x)


class Resampler(nn.Module):
    def __init__(self):
        super().__init__()
        self.resample = th.ResampleS2(8, 16, 4, 8, grid_in="equiangular", grid_out="equiangular")

    def forward(self, x):
        return self.resample(x)


CASES = [
    ("DiscoEncoder", lambda: DiscoEncoder(), lambda: (torch.randn(1, 2, 8, 16),)),
    ("Resampler", lambda: Resampler(), lambda: (torch.randn(1, 2, 8, 16),)),
]
