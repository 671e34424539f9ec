"""A small CNN with torchvision's squeeze-excitation and stochastic depth."""
import torch
from torch import nn
from torchvision.ops import SqueezeExcitation, StochasticDepth


class SEBlock(nn.Module):
    def __init__(self, channels=32):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.se = SqueezeExcitation(channels, channels // 4)
        self.drop = StochasticDepth(0.1, "row")

    def forward(self, x):
        return x + self.drop(self.se(torch.relu(self.conv(x))))


class SENet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 32, 3, padding=1)
        self.blocks = nn.Sequential(SEBlock(), SEBlock())
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.head(x.mean(dim=(2, 3)))
