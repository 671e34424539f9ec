"""Feature Pyramid Network neck over a dict of backbone feature maps.

Top-down pathway with lateral 1x1 connections and 3x3 output convs, plus optional
extra P6/P7 levels as in RetinaNet (torchvision ``FeaturePyramidNetwork`` layout).
"""
from collections import OrderedDict

import torch
import torch.nn.functional as F
from torch import nn


class LastLevelP6P7(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.p6 = nn.Conv2d(in_channels, out_channels, 3, 2, 1)
        self.p7 = nn.Conv2d(out_channels, out_channels, 3, 2, 1)
        self.use_P5 = in_channels == out_channels

    def forward(self, results, names):
        p6 = self.p6(results[-1])
        p7 = self.p7(F.relu(p6))
        return results + [p6, p7], names + ["p6", "p7"]


class FeaturePyramidNetwork(nn.Module):
    def __init__(self, in_channels_list=(8, 16, 32), out_channels=16, extra_blocks=None, upsample_mode="nearest"):
        super().__init__()
        self.inner_blocks = nn.ModuleDict()
        self.layer_blocks = nn.ModuleDict()
        for idx, in_channels in enumerate(in_channels_list):
            if in_channels == 0:
                raise ValueError("in_channels=0 is currently not supported")
            self.inner_blocks[f"inner{idx}"] = nn.Conv2d(in_channels, out_channels, 1)
            self.layer_blocks[f"layer{idx}"] = nn.Conv2d(out_channels, out_channels, 3, padding=1)
        self.extra_blocks = extra_blocks
        self.upsample_mode = upsample_mode

    def get_result_from_inner_blocks(self, x, idx: int):
        num_blocks = len(self.inner_blocks)
        if idx < 0:
            idx += num_blocks
        return self.inner_blocks[f"inner{idx}"](x)

    def get_result_from_layer_blocks(self, x, idx: int):
        return getattr(self.layer_blocks, f"layer{idx % len(self.layer_blocks)}")(x)

    def forward(self, x):
        if isinstance(x, dict):
            names, x = list(x.keys()), list(x.values())
        else:
            names = [f"feat{i}" for i in range(len(x))]
        last_inner = self.get_result_from_inner_blocks(x[-1], -1)
        results = [self.get_result_from_layer_blocks(last_inner, -1)]
        for idx in range(len(x) - 2, -1, -1):
            inner_lateral = self.get_result_from_inner_blocks(x[idx], idx)
            feat_shape = inner_lateral.shape[-2:]
            if self.upsample_mode == "nearest":
                inner_top_down = F.interpolate(last_inner, size=feat_shape, mode="nearest")
            else:
                inner_top_down = F.interpolate(last_inner, size=feat_shape, mode="bilinear", align_corners=False)
            last_inner = inner_lateral + inner_top_down
            results.insert(0, self.get_result_from_layer_blocks(last_inner, idx))
        if self.extra_blocks is not None:
            results, names = self.extra_blocks(results, names)
        return OrderedDict((k, v) for k, v in zip(names, results))


def make_feature_dict():
    return ({
        "c3": torch.randn(1, 8, 16, 16),
        "c4": torch.randn(1, 16, 8, 8),
        "c5": torch.randn(1, 32, 5, 5),
    },)


CASES = [
    ("FPN-dict-p6p7", lambda: FeaturePyramidNetwork(extra_blocks=LastLevelP6P7(16, 16)), make_feature_dict),
    ("FPN-list-bilinear", lambda: FeaturePyramidNetwork(upsample_mode="bilinear").eval(),
     lambda: ([torch.randn(2, 8, 12, 12), torch.randn(2, 16, 6, 6), torch.randn(2, 32, 3, 3)],)),
]
