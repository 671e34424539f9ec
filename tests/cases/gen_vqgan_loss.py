"""VQGAN training objective (Esser et al., 2021): reconstruction + perceptual-ish + hinge GAN loss.

The generator's adversarial term is balanced against the reconstruction term with the adaptive
weight of the paper, the ratio of the gradient norms of both losses at the decoder's last layer.
The discriminator is a PatchGAN; its contribution is switched on after `disc_start` steps.
"""
import torch
from torch import nn
import torch.nn.functional as F


class AdaptiveWeightMixin:
    """Balances two losses by their gradient norms at a reference layer."""

    def calculate_adaptive_weight(self, nll_loss, g_loss, last_layer):
        nll_grads = torch.autograd.grad(nll_loss, last_layer, retain_graph=True)[0]
        g_grads = torch.autograd.grad(g_loss, last_layer, retain_graph=True)[0]
        d_weight = torch.norm(nll_grads) / (torch.norm(g_grads) + 1e-4)
        return torch.clamp(d_weight, 0.0, 1e4).detach() * self.discriminator_weight

    @staticmethod
    def adopt_weight(weight, global_step, threshold=0, value=0.0):
        if global_step < threshold:
            weight = value
        return weight


class NLayerDiscriminator(nn.Module):
    def __init__(self, input_nc=3, ndf=8, n_layers=2):
        super().__init__()
        layers = [nn.Conv2d(input_nc, ndf, 4, 2, 1), nn.LeakyReLU(0.2, True)]
        mult = 1
        for n in range(1, n_layers):
            prev, mult = mult, min(2 ** n, 8)
            layers += [nn.Conv2d(ndf * prev, ndf * mult, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * mult),
                       nn.LeakyReLU(0.2, True)]
        layers += [nn.Conv2d(ndf * mult, 1, 3, 1, 1)]
        self.main = nn.Sequential(*layers)

    def forward(self, x):
        return self.main(x)


class TinyDecoder(nn.Module):
    def __init__(self, z_channels=4, out_channels=3):
        super().__init__()
        self.conv_in = nn.Conv2d(z_channels, 16, 3, padding=1)
        self.conv_out = nn.Conv2d(16, out_channels, 3, padding=1)

    def forward(self, z):
        return self.conv_out(F.silu(self.conv_in(F.interpolate(z, scale_factor=2.0))))


class VQLPIPSWithDiscriminator(AdaptiveWeightMixin, nn.Module):
    def __init__(self, disc_start=0, codebook_weight=1.0, disc_factor=1.0, disc_weight=0.8):
        super().__init__()
        self.decoder = TinyDecoder()
        self.discriminator = NLayerDiscriminator()
        self.discriminator_iter_start = disc_start
        self.codebook_weight = codebook_weight
        self.disc_factor = disc_factor
        self.discriminator_weight = disc_weight

    def forward(self, quant, inputs, codebook_loss, global_step=1):
        reconstructions = self.decoder(quant)
        rec_loss = torch.abs(inputs - reconstructions)
        nll_loss = rec_loss.mean()
        logits_fake = self.discriminator(reconstructions)
        g_loss = -torch.mean(logits_fake)
        if self.training:
            d_weight = self.calculate_adaptive_weight(nll_loss, g_loss, self.decoder.conv_out.weight)
        else:
            d_weight = torch.tensor(0.0)
        disc_factor = self.adopt_weight(self.disc_factor, global_step, threshold=self.discriminator_iter_start)
        return nll_loss + d_weight * disc_factor * g_loss + self.codebook_weight * codebook_loss.mean()


CASES = [
    ("VQLPIPSWithDiscriminator", VQLPIPSWithDiscriminator,
     lambda: (torch.randn(2, 4, 4, 4), torch.randn(2, 3, 8, 8), torch.rand(2))),
]
