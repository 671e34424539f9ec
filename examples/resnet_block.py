"""ResNet basic blocks stacked in a stage: a clean model that compiles to one graph."""
import torch.nn as nn
import torch.nn.functional as F


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes: int, planes: int, stride: int = 1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.shortcut = nn.Sequential()
        if stride != 1 or in_planes != planes:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_planes, planes, 1, stride=stride, bias=False),
                nn.BatchNorm2d(planes),
            )

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


class ResNetStage(nn.Module):
    def __init__(self, in_planes: int = 16, planes: int = 32, blocks: int = 2, stride: int = 2):
        super().__init__()
        layers = [BasicBlock(in_planes, planes, stride)]
        layers += [BasicBlock(planes, planes) for _ in range(blocks - 1)]
        self.blocks = nn.Sequential(*layers)

    def forward(self, x):
        return self.blocks(x)
