"""ResNet-10 (BasicBlock, one block per stage) of torchvision and of timm, as a user builds them:
the library's classes handed to the user's `__init__`."""
import torch
from timm.models.resnet import BasicBlock as TimmBasicBlock
from timm.models.resnet import ResNet as TimmResNet
from torch import nn
from torchvision.models.resnet import BasicBlock, ResNet


class TorchvisionResNet10(nn.Module):
    def __init__(self, resnet=ResNet, block=BasicBlock):
        super().__init__()
        self.body = resnet(block, [1, 1, 1, 1], num_classes=10)

    def forward(self, x):
        return self.body(x)


class TimmResNet10(TorchvisionResNet10):
    def __init__(self):
        super().__init__(TimmResNet, TimmBasicBlock)


def make_inputs():
    return (torch.randn(2, 3, 32, 32),)
