"""ResNet-50 style bottleneck trunk with frozen BatchNorm, as used by detection backbones.

``FrozenBatchNorm2d`` keeps the ImageNet statistics fixed (torchvision.ops.misc); the stem can be
frozen entirely so fine-tuning only updates the later stages.
"""
import copy
import warnings

import torch
import torch.nn as nn


class FrozenBatchNorm2d(nn.Module):
    def __init__(self, num_features, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.register_buffer("weight", torch.ones(num_features))
        self.register_buffer("bias", torch.zeros(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))

    def forward(self, x):
        w = self.weight.reshape(1, -1, 1, 1)
        b = self.bias.reshape(1, -1, 1, 1)
        rv = self.running_var.reshape(1, -1, 1, 1)
        rm = self.running_mean.reshape(1, -1, 1, 1)
        scale = w * (rv + max(self.eps, torch.finfo(x.dtype).eps)).rsqrt()
        return x * scale + (b - rm * scale)


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride=1, norm_layer=FrozenBatchNorm2d):
        super().__init__()
        width = planes
        self.conv1 = nn.Conv2d(inplanes, width, 1, bias=False)
        self.bn1 = norm_layer(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride=stride, padding=1, bias=False)
        self.bn2 = norm_layer(width)
        self.conv3 = nn.Conv2d(width, planes * self.expansion, 1, bias=False)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = None
        if stride != 1 or inplanes != planes * self.expansion:
            self.downsample = nn.Sequential(
                nn.Conv2d(inplanes, planes * self.expansion, 1, stride=stride, bias=False),
                norm_layer(planes * self.expansion),
            )

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + identity)


class DetectionResNet(nn.Module):
    default_cfg = {"stem_width": 8, "layers": [1, 2], "freeze_stem": True, "return_layers": ["layer1", "layer2"]}

    def __init__(self, cfg=None):
        super().__init__()
        self.cfg = copy.deepcopy(cfg or self.default_cfg)
        stem_width = self.cfg["stem_width"]
        self.stem = nn.Sequential(nn.Conv2d(3, stem_width, 3, 2, 1, bias=False), FrozenBatchNorm2d(stem_width), nn.ReLU())
        inplanes = stem_width
        for i, depth in enumerate(self.cfg["layers"]):
            planes = stem_width * 2 ** i
            blocks = [Bottleneck(inplanes, planes, stride=1 if i == 0 else 2)]
            blocks += [Bottleneck(planes * 4, planes) for _ in range(depth - 1)]
            setattr(self, f"layer{i + 1}", nn.Sequential(*blocks))
            inplanes = planes * 4

    def forward(self, images):
        if images.shape[1] != 3:
            warnings.warn(f"expected RGB input, got {images.shape[1]} channels")
        if self.cfg["freeze_stem"]:
            with torch.no_grad():
                x = self.stem(images)
        else:
            x = self.stem(images)
        features = {}
        for name in self.cfg["return_layers"]:
            x = getattr(self, name)(x)
            features[name] = x
        return features


CASES = [
    ("DetectionResNet-frozen-stem", DetectionResNet, lambda: (torch.randn(1, 3, 16, 16),)),
    ("DetectionResNet-trainable", lambda: DetectionResNet({**DetectionResNet.default_cfg, "freeze_stem": False}),
     lambda: (torch.randn(2, 3, 12, 12),)),
]
