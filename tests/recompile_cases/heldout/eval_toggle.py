"""A validation pass under no_grad every few steps of training, and a batchnorm model
switching to eval."""
import torch
import torch.nn as nn


class BNNet(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.bn = nn.BatchNorm1d(width)

    def forward(self, x):
        return self.bn(self.fc(x))


def validation_pass():
    model = torch.compile(BNNet())
    x = torch.randn(4, 16)
    model(x).sum().backward()
    with torch.no_grad():
        model(x)


def batchnorm_eval():
    model = BNNet()
    compiled = torch.compile(model)
    x = torch.randn(4, 16)
    compiled(x)
    model.eval()
    compiled(x)


RECOMPILE_CASES = [
    ("validation_pass", validation_pass),
    ("batchnorm_eval", batchnorm_eval),
]
