"""A network split into stages so that each stage compiles and checkpoints on its own."""
import torch
import torch.nn as nn


class StageBoundary(nn.Module):
    """Marks where one pipeline stage ends and the next begins."""

    def forward(self, x):
        torch._dynamo.graph_break()
        return x


class ConvStage(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.norm = nn.GroupNorm(4, channels)

    def forward(self, x):
        return x + torch.relu(self.norm(self.conv(x)))


def build_staged_net(channels=8, depth=2):
    layers = [nn.Conv2d(3, channels, 1)]
    for i in range(depth):
        layers.append(ConvStage(channels))
        if i < depth - 1:
            layers.append(StageBoundary())
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(channels, 10)]
    return nn.Sequential(*layers)


CASES = [("StagedNet", build_staged_net, lambda: (torch.randn(2, 3, 8, 8),))]
