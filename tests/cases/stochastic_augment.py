"""On-model augmentations used by self-supervised pipelines."""
import random

import numpy as np
import torch
from torch import nn


class RandomHorizontalFlip(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def forward(self, images):
        if self.training and random.random() < self.p:
            images = images.flip(-1)
        return images


class RandomBrightness(nn.Module):
    def __init__(self, low=0.8, high=1.2):
        super().__init__()
        self.low, self.high = low, high

    def forward(self, images):
        factor = np.random.uniform(self.low, self.high)
        return (images * factor).clamp(0, 1)


CASES = [
    ("RandomHorizontalFlip", RandomHorizontalFlip, lambda: (torch.rand(2, 3, 8, 8),)),
    ("RandomBrightness", RandomBrightness, lambda: (torch.rand(2, 3, 8, 8),)),
]
