"""Audio and image resampling layers that warn about suspicious inputs (torchaudio style)."""
import warnings

import torch
from torch import nn
from torch.nn import functional as F


class WarningResampler(nn.Module):
    def __init__(self, orig_freq=16, new_freq=8):
        super().__init__()
        self.orig_freq = orig_freq
        self.new_freq = new_freq

    def forward(self, waveform):
        if waveform.dim() == 2:
            warnings.warn("expected a (batch, channel, time) waveform; adding a channel dimension")
            waveform = waveform.unsqueeze(1)
        if waveform.shape[-1] % self.orig_freq:
            warnings.warn("waveform length is not a multiple of the original frequency; the tail is padded")
        length = waveform.shape[-1] * self.new_freq // self.orig_freq
        return F.interpolate(waveform, size=length, mode="linear", align_corners=False)


class WarningResize(nn.Module):
    def __init__(self, size=8):
        super().__init__()
        self.size = size

    def forward(self, images):
        if images.shape[-1] != images.shape[-2]:
            warnings.warn(f"non-square input {tuple(images.shape[-2:])} is resized to a square")
        if images.shape[-1] < self.size:
            warnings.warn("upsampling a small image; consider a larger input", UserWarning)
        return F.interpolate(images, size=(self.size, self.size), mode="bilinear", align_corners=False)


CASES = [
    ("WarningResampler", WarningResampler, lambda: (torch.randn(2, 30),)),
    ("WarningResize", WarningResize, lambda: (torch.randn(2, 3, 6, 5),)),
]
