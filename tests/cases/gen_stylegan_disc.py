"""StyleGAN2 discriminator (Karras et al., 2020) with equalised learning rate.

Residual down-sampling blocks are followed by the epilogue: minibatch standard deviation, a 3x3
conv, a fully connected layer and the conditional projection output. All layers scale their
weights at runtime by 1/sqrt(fan_in) (equalised learning rate).
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class EqualConv2d(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, bias=True):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_channels, in_channels, kernel_size, kernel_size))
        self.bias = nn.Parameter(torch.zeros(out_channels)) if bias else None
        self.weight_gain = 1 / math.sqrt(in_channels * kernel_size ** 2)
        self.stride, self.padding = stride, padding

    def forward(self, x):
        return F.conv2d(x, self.weight * self.weight_gain, self.bias, self.stride, self.padding)


class EqualLinear(nn.Module):
    def __init__(self, in_features, out_features, lr_multiplier=1.0):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_features, in_features) / lr_multiplier)
        self.bias = nn.Parameter(torch.zeros(out_features))
        self.weight_gain = lr_multiplier / math.sqrt(in_features)

    def forward(self, x):
        return F.linear(x, self.weight * self.weight_gain, self.bias)


class MinibatchStdLayer(nn.Module):
    def __init__(self, group_size=4, num_channels=1):
        super().__init__()
        self.group_size = group_size
        self.num_channels = num_channels

    def forward(self, x):
        N, C, H, W = x.shape
        G = torch.min(torch.as_tensor(self.group_size), torch.as_tensor(N)) if self.group_size is not None else N
        F_ = self.num_channels
        c = C // F_
        y = x.reshape(G, -1, F_, c, H, W)
        y = (y - y.mean(dim=0)).square().mean(dim=0)
        y = (y + 1e-8).sqrt().mean(dim=[2, 3, 4])
        y = y.reshape(-1, F_, 1, 1).repeat(G, 1, H, W)
        return torch.cat([x, y], dim=1)


class DiscriminatorBlock(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv0 = EqualConv2d(in_channels, in_channels, 3, padding=1)
        self.conv1 = EqualConv2d(in_channels, out_channels, 3, stride=2, padding=1)
        self.skip = EqualConv2d(in_channels, out_channels, 1, stride=2, bias=False)

    def forward(self, x):
        y = self.skip(x)
        x = F.leaky_relu(self.conv0(x), 0.2) * math.sqrt(2)
        x = F.leaky_relu(self.conv1(x), 0.2) * math.sqrt(2)
        return (x + y) * math.sqrt(0.5)


class StyleGAN2Discriminator(nn.Module):
    def __init__(self, img_channels=3, channels=(8, 16), resolution=8, c_dim=4, mbstd_group_size=2):
        super().__init__()
        self.from_rgb = EqualConv2d(img_channels, channels[0], 1)
        self.blocks = nn.Sequential(*[DiscriminatorBlock(a, b) for a, b in zip(channels[:-1], channels[1:])])
        final_res = resolution // 2 ** (len(channels) - 1)
        self.epilogue = nn.Sequential(
            MinibatchStdLayer(mbstd_group_size),
            EqualConv2d(channels[-1] + 1, channels[-1], 3, padding=1),
            nn.LeakyReLU(0.2),
            nn.Flatten(),
            EqualLinear(channels[-1] * final_res ** 2, channels[-1]),
            nn.LeakyReLU(0.2),
        )
        self.out = EqualLinear(channels[-1], c_dim)
        self.cmap_dim = c_dim

    def forward(self, img, c):
        x = F.leaky_relu(self.from_rgb(img), 0.2)
        x = self.epilogue(self.blocks(x))
        return (self.out(x) * c).sum(dim=1, keepdim=True) * (1 / math.sqrt(self.cmap_dim))


CASES = [("StyleGAN2Discriminator", StyleGAN2Discriminator, lambda: (torch.randn(4, 3, 8, 8), torch.randn(4, 4)))]
