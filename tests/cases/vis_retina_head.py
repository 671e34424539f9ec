"""RetinaNet classification and box-regression heads shared across pyramid levels.

The classification bias is initialised to the focal-loss prior ``-log((1 - pi) / pi)``; outputs
of all levels are flattened to (N, HWA, K) and concatenated, as in torchvision's RetinaNetHead.
"""
import math

import torch as th
import torch.nn as nn


def _conv_tower(channels, num_convs, norm=True):
    layers = []
    for _ in range(num_convs):
        layers.append(nn.Conv2d(channels, channels, 3, padding=1))
        if norm:
            layers.append(nn.GroupNorm(4, channels))
        layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class RetinaNetClassificationHead(nn.Module):
    def __init__(self, in_channels, num_anchors, num_classes, prior_probability=0.01):
        super().__init__()
        self.conv = _conv_tower(in_channels, 2)
        self.cls_logits = nn.Conv2d(in_channels, num_anchors * num_classes, 3, padding=1)
        nn.init.normal_(self.cls_logits.weight, std=0.01)
        nn.init.constant_(self.cls_logits.bias, -math.log((1 - prior_probability) / prior_probability))
        self.num_classes = num_classes
        self.num_anchors = num_anchors

    def forward(self, x):
        all_cls_logits = []
        for features in x:
            cls_logits = self.cls_logits(self.conv(features))
            N, _, H, W = cls_logits.shape
            cls_logits = cls_logits.view(N, -1, self.num_classes, H, W).permute(0, 3, 4, 1, 2)
            all_cls_logits.append(cls_logits.reshape(N, -1, self.num_classes))
        return th.cat(all_cls_logits, dim=1)


class RetinaNetRegressionHead(nn.Module):
    _box_dim = 4

    def __init__(self, in_channels, num_anchors):
        super().__init__()
        self.conv = _conv_tower(in_channels, 2)
        self.bbox_reg = nn.Conv2d(in_channels, num_anchors * self._box_dim, 3, padding=1)

    def forward(self, x):
        outs = []
        for features in x:
            reg = self.bbox_reg(self.conv(features))
            N, _, H, W = reg.shape
            outs.append(reg.view(N, -1, self._box_dim, H, W).permute(0, 3, 4, 1, 2).reshape(N, -1, self._box_dim))
        return th.cat(outs, dim=1)


class RetinaNetHead(nn.Module):
    def __init__(self, in_channels=16, num_anchors=3, num_classes=5):
        super().__init__()
        self.classification_head = RetinaNetClassificationHead(in_channels, num_anchors, num_classes)
        self.regression_head = RetinaNetRegressionHead(in_channels, num_anchors)

    def forward(self, x):
        if isinstance(x, dict):
            x = list(x.values())
        elif not isinstance(x, (list, tuple)):
            x = [x]
        num_anchors_per_level = [f.size(2) * f.size(3) * self.classification_head.num_anchors for f in x]
        return {
            "cls_logits": self.classification_head(x),
            "bbox_regression": self.regression_head(x),
            "num_anchors_per_level": num_anchors_per_level,
        }


CASES = [
    ("RetinaNetHead-levels", RetinaNetHead, lambda: ([th.randn(2, 16, 8, 8), th.randn(2, 16, 4, 4)],)),
    ("RetinaNetHead-single", lambda: RetinaNetHead().eval(), lambda: (th.randn(1, 16, 5, 5),)),
]
