import torch
from torch import nn

import toylib
from toylib.layers import scaled


class FineTuned(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = toylib.Classifier(dim=32)
        self.extra = nn.Linear(10, 2)

    def forward(self, x):
        logits, kept = self.backbone(x)
        return self.extra(scaled(logits)), kept


model = torch.compile(FineTuned())
