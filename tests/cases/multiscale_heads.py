"""Feature-pyramid prediction heads applied in a fixed order of scales."""
import torch
from torch import nn


class MultiScaleHeads(nn.Module):
    def __init__(self, channels=8, classes=3, strides=(16, 8, 32)):
        super().__init__()
        self.strides = list(strides)
        self.heads = nn.ModuleDict({f"p{s}": nn.Conv2d(channels, classes, 1) for s in strides})

    def forward(self, features):
        outputs = []
        for stride in sorted(self.strides):
            outputs.append(self.heads[f"p{stride}"](features[stride]).flatten(2))
        for name in sorted(self.heads.keys(), reverse=True):
            outputs.append(self.heads[name].bias.reshape(1, -1, 1).expand(outputs[0].shape[0], -1, 1))
        dims = sorted(features[8].shape[-2:])
        return torch.cat(outputs, dim=-1), dims


def _features():
    return ({16: torch.randn(2, 8, 4, 4), 8: torch.randn(2, 8, 8, 8), 32: torch.randn(2, 8, 2, 2)},)


CASES = [("MultiScaleHeads", MultiScaleHeads, _features)]
