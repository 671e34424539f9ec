"""HiFi-GAN discriminators: multi-period (MPD) and multi-scale (MSD) (Kong et al., 2020).

The period discriminator reflect-pads the waveform to a multiple of its period, folds it into a
2-D (time / period, period) map and applies strided 2-D convs; the scale discriminator works on
average-pooled waveforms. Both return their logits plus every intermediate feature map for the
feature-matching loss.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.parametrizations import spectral_norm, weight_norm

LRELU_SLOPE = 0.1


def get_padding(kernel_size, dilation=1):
    return int((kernel_size * dilation - dilation) / 2)


class DiscriminatorP(nn.Module):
    def __init__(self, period, channels=(4, 8), kernel_size=5, stride=3, use_spectral_norm=False):
        super().__init__()
        self.period = period
        norm_f = spectral_norm if use_spectral_norm else weight_norm
        chans = [1, *channels]
        self.convs = nn.ModuleList(
            norm_f(nn.Conv2d(c_in, c_out, (kernel_size, 1), (stride, 1), padding=(get_padding(kernel_size), 0)))
            for c_in, c_out in zip(chans[:-1], chans[1:])
        )
        self.conv_post = norm_f(nn.Conv2d(chans[-1], 1, (3, 1), 1, padding=(1, 0)))

    def forward(self, x):
        fmap = []
        b, c, t = x.shape
        if t % self.period != 0:
            n_pad = self.period - (t % self.period)
            x = F.pad(x, (0, n_pad), "reflect")
            t = t + n_pad
        x = x.view(b, c, t // self.period, self.period)
        for layer in self.convs:
            x = F.leaky_relu(layer(x), LRELU_SLOPE)
            fmap.append(x)
        x = self.conv_post(x)
        fmap.append(x)
        return torch.flatten(x, 1, -1), fmap


class DiscriminatorS(nn.Module):
    def __init__(self, channels=(4, 8), use_spectral_norm=False):
        super().__init__()
        norm_f = spectral_norm if use_spectral_norm else weight_norm
        chans = [1, *channels]
        self.convs = nn.ModuleList(
            norm_f(nn.Conv1d(c_in, c_out, 15, 2, padding=7, groups=1 if i == 0 else 2))
            for i, (c_in, c_out) in enumerate(zip(chans[:-1], chans[1:]))
        )
        self.conv_post = norm_f(nn.Conv1d(chans[-1], 1, 3, 1, padding=1))

    def forward(self, x):
        fmap = []
        for layer in self.convs:
            x = F.leaky_relu(layer(x), LRELU_SLOPE)
            fmap.append(x)
        x = self.conv_post(x)
        fmap.append(x)
        return torch.flatten(x, 1, -1), fmap


class HiFiGANDiscriminator(nn.Module):
    def __init__(self, periods=(2, 3, 5), num_scales=2):
        super().__init__()
        self.discriminators = nn.ModuleDict({f"period_{p}": DiscriminatorP(p) for p in periods})
        for i in range(num_scales):
            self.discriminators[f"scale_{i}"] = DiscriminatorS(use_spectral_norm=i == 0)
        self.pool = nn.AvgPool1d(4, 2, padding=2)

    def forward(self, y, y_hat):
        real_logits, fake_logits, fmap_loss = [], [], 0.0
        y_scaled, y_hat_scaled = y, y_hat
        for name, disc in self.discriminators.items():
            if name.startswith("scale_") and name != "scale_0":
                y_scaled, y_hat_scaled = self.pool(y_scaled), self.pool(y_hat_scaled)
            inputs = (y, y_hat) if name.startswith("period_") else (y_scaled, y_hat_scaled)
            d_real, fmap_real = disc(inputs[0])
            d_fake, fmap_fake = disc(inputs[1])
            fmap_loss = fmap_loss + sum(F.l1_loss(fg, fr.detach()) for fr, fg in zip(fmap_real, fmap_fake))
            real_logits.append(d_real)
            fake_logits.append(d_fake)
        return real_logits, fake_logits, 2 * fmap_loss


CASES = [("HiFiGANDiscriminator", HiFiGANDiscriminator, lambda: (torch.randn(2, 1, 64), torch.randn(2, 1, 64)))]
