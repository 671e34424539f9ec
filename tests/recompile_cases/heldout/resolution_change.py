"""An image pipeline whose resolution changes: default dynamic recompiles once, dynamic=False
per resolution."""
import torch
import torch.nn as nn


class ConvStem(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.pool = nn.AdaptiveAvgPool2d(1)

    def forward(self, image):
        return self.pool(torch.relu(self.conv(image))).flatten(1)


def default_resolutions():
    model = torch.compile(ConvStem())
    for size in (16, 24, 32):
        model(torch.randn(1, 3, size, size))


def static_resolutions():
    model = torch.compile(ConvStem(), dynamic=False)
    for size in (16, 24, 32):
        model(torch.randn(1, 3, size, size))


def one_resolution():
    model = torch.compile(ConvStem(), dynamic=False)
    for _ in range(3):
        model(torch.randn(1, 3, 16, 16))


RECOMPILE_CASES = [
    ("default_resolutions", default_resolutions),
    ("static_resolutions", static_resolutions),
    ("one_resolution", one_resolution),
]
