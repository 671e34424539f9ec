"""ResNet built the timm way: layer classes resolved by factories, stages from a module-level
builder registered as (name, module) pairs, stochastic depth decayed over the whole network.

Follows timm's ``resnet.py`` (``make_blocks``, ``get_act_layer``, ``create_classifier``).
"""
import torch
import torch.nn as nn

from .vis_layers import create_attn, create_classifier, get_act_layer, get_norm_layer, to_ntuple


class ResidualBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None, act_layer=nn.ReLU,
                 norm_layer=nn.BatchNorm2d, attn_layer=None, drop_prob=0.0):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride=stride, padding=1, bias=False)
        self.bn1 = norm_layer(planes)
        self.act1 = act_layer(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes * self.expansion, 3, padding=1, bias=False)
        self.bn2 = norm_layer(planes * self.expansion)
        self.se = create_attn(attn_layer, planes * self.expansion)
        self.act2 = act_layer(inplace=True)
        self.downsample = downsample
        self.drop_prob = drop_prob

    def forward(self, x):
        shortcut = x if self.downsample is None else self.downsample(x)
        # Stochastic depth by skipping the whole residual branch of this sample batch.
        if self.drop_prob > 0.0 and self.training and torch.rand(()) < self.drop_prob:
            return self.act2(shortcut)
        x = self.act1(self.bn1(self.conv1(x)))
        x = self.bn2(self.conv2(x))
        if self.se is not None:
            x = self.se(x)
        return self.act2(x + shortcut)


def make_stages(block_fns, channels, depths, inplanes, drop_path_rate=0.0, **block_kwargs):
    stages = []
    net_num_blocks = sum(depths)
    net_block_idx = 0
    for stage_idx, (block_fn, planes, num_blocks) in enumerate(zip(block_fns, channels, depths)):
        stride = 1 if stage_idx == 0 else 2
        downsample = None
        if stride != 1 or inplanes != planes * block_fn.expansion:
            downsample = nn.Sequential(
                nn.Conv2d(inplanes, planes * block_fn.expansion, 1, stride=stride, bias=False),
                block_kwargs["norm_layer"](planes * block_fn.expansion),
            )
        blocks = []
        for block_idx in range(num_blocks):
            block_dpr = drop_path_rate * net_block_idx / (net_num_blocks - 1)
            blocks.append(block_fn(inplanes, planes, stride if block_idx == 0 else 1,
                                   downsample if block_idx == 0 else None, drop_prob=block_dpr, **block_kwargs))
            inplanes = planes * block_fn.expansion
            net_block_idx += 1
        stages.append((f"layer{stage_idx + 1}", nn.Sequential(*blocks)))
    return stages


class FactoryResNet(nn.Module):
    def __init__(self, block=ResidualBlock, depths=(1, 2), channels=(8, 16), num_classes=5, stem_type="",
                 act_layer=nn.ReLU, norm_layer=nn.BatchNorm2d, drop_path_rate=0.0):
        super().__init__()
        act_layer = get_act_layer(act_layer)
        norm_layer = get_norm_layer(norm_layer)
        deep_stem = "deep" in stem_type
        inplanes = 16 if deep_stem else 8
        if deep_stem:
            self.conv1 = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), norm_layer(8), act_layer(inplace=True),
                                       nn.Conv2d(8, inplanes, 3, padding=1))
        else:
            self.conv1 = nn.Conv2d(3, inplanes, 5, padding=2, bias=False)
        self.bn1 = norm_layer(inplanes)
        self.act1 = act_layer(inplace=True)
        block_fns = to_ntuple(len(channels))(block)
        stages = make_stages(block_fns, channels, depths, inplanes, drop_path_rate=drop_path_rate,
                             act_layer=act_layer, norm_layer=norm_layer)
        for stage in stages:
            self.add_module(*stage)
        self.num_features = channels[-1] * block_fns[-1].expansion
        self.global_pool, self.fc = create_classifier(self.num_features, num_classes)

    def forward(self, x):
        x = self.act1(self.bn1(self.conv1(x)))
        x = self.layer2(self.layer1(x))
        return self.fc(self.global_pool(x))


class ResNetClassifier(nn.Module):
    """The factory network as a user configures it: two stages, stochastic depth on."""

    def __init__(self, num_classes=5):
        super().__init__()
        self.backbone = FactoryResNet(ResidualBlock, depths=(1, 2), channels=(8, 16), num_classes=num_classes,
                                      act_layer=nn.ReLU, drop_path_rate=0.1)

    def forward(self, x):
        return self.backbone(x)


CASES = [
    ("ResNetClassifier", ResNetClassifier, lambda: (torch.randn(2, 3, 8, 8),)),
    ("ResNetClassifier-eval", lambda: ResNetClassifier().eval(), lambda: (torch.randn(2, 3, 8, 8),)),
    ("FactoryResNet-deep", lambda: FactoryResNet(stem_type="deep", act_layer=nn.SiLU),
     lambda: (torch.randn(2, 3, 8, 8),)),
]
