"""Standard-library calls that slip into forward while debugging or configuring: json, re,
os.path and datetime; next to math on a static size, which dynamo folds."""
import datetime
import json
import math
import os
import re

import torch
import torch.nn as nn


class JsonConfigHead(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.config = {"dim": dim}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        text = json.dumps(self.config)
        return h * len(text)


class RegexModeHead(nn.Module):
    def __init__(self, dim=8, mode="scale_2"):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.mode = mode

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        match = re.match(r"scale_(\d+)", self.mode)
        return h * float(match.group(1))


class TimestampHead(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        stamp = datetime.datetime.now()
        return h + stamp.microsecond * 0.0


class PathCheckHead(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        if os.path.exists("/nonexistent/debug.flag"):
            h = h * 2
        return h / math.sqrt(h.shape[-1])


CASES = [
    ("JsonConfigHead", JsonConfigHead, lambda: (torch.randn(2, 8),)),
    ("RegexModeHead", RegexModeHead, lambda: (torch.randn(2, 8),)),
    ("TimestampHead", TimestampHead, lambda: (torch.randn(2, 8),)),
    ("PathCheckHead", PathCheckHead, lambda: (torch.randn(2, 8),)),
]
