"""Random crop and patch dropout applied inside the model during training."""
import random

import torch
import torch.nn as nn


class RandomCropEncoder(nn.Module):
    def __init__(self, crop=6, dim=8):
        super().__init__()
        self.crop = crop
        self.conv = nn.Conv2d(3, dim, 3, padding=1)

    def forward(self, images):
        h, w = images.shape[-2:]
        top = random.randint(0, h - self.crop)
        left = random.randint(0, w - self.crop)
        patch = images[..., top:top + self.crop, left:left + self.crop]
        return self.conv(patch).mean((2, 3))


CASES = [("RandomCropEncoder", RandomCropEncoder, lambda: (torch.randn(2, 3, 10, 10),))]
