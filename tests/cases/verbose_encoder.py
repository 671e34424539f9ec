"""Convolutional encoder with optional activation statistics for debugging runs."""
import torch
from torch import nn


class ActivationStatsMixin:
    """Reports per-stage activation statistics while a model runs."""

    report_stats = True

    def _report(self, stage, x):
        if self.report_stats:
            print(f"[{type(self).__name__}] stage {stage}: shape={tuple(x.shape)}")
        return x


class ConvEncoder(ActivationStatsMixin, nn.Module):
    def __init__(self, in_ch=3, widths=(8, 16)):
        super().__init__()
        stages = []
        prev = in_ch
        for w in widths:
            stages.append(nn.Sequential(nn.Conv2d(prev, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU()))
            prev = w
        self.stages = nn.ModuleList(stages)
        self.pool = nn.AdaptiveAvgPool2d(1)

    def forward(self, images):
        x = images
        x = self.stages[0](x)
        x = self._report(0, x)
        x = self.stages[1](x)
        return self.pool(x).flatten(1)


class QuietConvEncoder(ConvEncoder):
    report_stats = False


CASES = [
    ("ConvEncoder", ConvEncoder, lambda: (torch.randn(2, 3, 8, 8),)),
    ("QuietConvEncoder", QuietConvEncoder, lambda: (torch.randn(2, 3, 8, 8),)),
]
