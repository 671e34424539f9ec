"""A block whose debugging behaviour is switched by environment variables."""
import os

import torch
import torch.nn as nn

_ANOMALY = os.environ.get("MODEL_DETECT_ANOMALY", "0") == "1"


class SwitchableBlock(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.act = os.getenv("MODEL_ACTIVATION", "gelu")

    def forward(self, x):
        y = self.fc(x)
        if os.environ.get("MODEL_DEBUG_SCALE"):
            y = y * float(os.environ["MODEL_DEBUG_SCALE"])
        y = torch.nn.functional.gelu(y) if self.act == "gelu" else torch.relu(y)
        if _ANOMALY and not torch.compiler.is_compiling():
            torch.autograd.set_detect_anomaly(True)
        return y


CASES = [("SwitchableBlock", SwitchableBlock, lambda: (torch.randn(2, 16),))]
