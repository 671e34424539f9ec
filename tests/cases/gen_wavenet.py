"""Conditional WaveNet vocoder (van den Oord et al., 2016; Shen et al., 2018 conditioning).

Mel frames are upsampled to the sample rate by transposed convolutions, the waveform passes a
stack of gated, dilated causal convolutions with residual and skip connections, and the output
is a categorical distribution over 8-bit mu-law codes. The vocoder base class carries the input
validation shared by all vocoders of the toolkit.
"""
import math

import torch
from torch import nn
from torch.nn import functional as F


@torch.compiler.disable
def mulaw_decode(codes, quantization_channels=256):
    mu = quantization_channels - 1
    y = 2 * codes.float() / mu - 1
    return torch.sign(y) * (torch.exp(torch.abs(y) * math.log1p(mu)) - 1) / mu


class BaseVocoder(nn.Module):
    hop_length = 4
    num_mels = 8

    def check_conditioning(self, mel):
        if mel.shape[1] != self.num_mels:
            raise ValueError(f"expected {self.num_mels} mel channels, got {mel.shape[1]}")
        if torch.isnan(mel).any():
            raise ValueError("conditioning features contain NaN")
        return mel


class CausalConv1d(nn.Conv1d):
    def __init__(self, in_channels, out_channels, kernel_size, dilation=1):
        super().__init__(in_channels, out_channels, kernel_size, dilation=dilation)
        self.left_padding = (kernel_size - 1) * dilation

    def forward(self, x):
        return super().forward(F.pad(x, (self.left_padding, 0)))


class ResidualLayer(nn.Module):
    def __init__(self, residual_channels, gate_channels, skip_channels, cond_channels, dilation):
        super().__init__()
        self.conv = CausalConv1d(residual_channels, gate_channels, 2, dilation=dilation)
        self.cond = nn.Conv1d(cond_channels, gate_channels, 1, bias=False)
        self.res = nn.Conv1d(gate_channels // 2, residual_channels, 1)
        self.skip = nn.Conv1d(gate_channels // 2, skip_channels, 1)

    def forward(self, x, c):
        a, b = (self.conv(x) + self.cond(c)).chunk(2, dim=1)
        h = torch.tanh(a) * torch.sigmoid(b)
        return (x + self.res(h)) * math.sqrt(0.5), self.skip(h)


class WaveNetVocoder(BaseVocoder):
    def __init__(self, layers=4, stacks=2, residual_channels=8, gate_channels=16, skip_channels=8, classes=256):
        super().__init__()
        self.first_conv = nn.Conv1d(1, residual_channels, 1)
        self.upsample = nn.Sequential(
            nn.ConvTranspose1d(self.num_mels, self.num_mels, 4, stride=2, padding=1), nn.LeakyReLU(0.4),
            nn.ConvTranspose1d(self.num_mels, self.num_mels, 4, stride=2, padding=1), nn.LeakyReLU(0.4),
        )
        layers_per_stack = layers // stacks
        self.conv_layers = nn.ModuleList(
            ResidualLayer(residual_channels, gate_channels, skip_channels, self.num_mels, 2 ** (i % layers_per_stack))
            for i in range(layers)
        )
        self.last_conv_layers = nn.Sequential(
            nn.ReLU(), nn.Conv1d(skip_channels, skip_channels, 1), nn.ReLU(), nn.Conv1d(skip_channels, classes, 1)
        )

    def forward(self, audio_codes, mel):
        mel = self.check_conditioning(mel)
        x = mulaw_decode(audio_codes).unsqueeze(1)
        c = self.upsample(mel)[..., : x.shape[-1]]
        x = self.first_conv(x)
        skips = 0
        for layer in self.conv_layers:
            x, h = layer(x, c)
            skips = skips + h
        skips = skips * math.sqrt(1.0 / len(self.conv_layers))
        return F.log_softmax(self.last_conv_layers(skips), dim=1)


CASES = [("WaveNetVocoder", WaveNetVocoder, lambda: (torch.randint(0, 256, (2, 20)), torch.randn(2, 8, 5)))]
