"""A head that returns its effective configuration alongside the prediction."""
import copy

import torch
import torch.nn as nn


class ConfiguredHead(nn.Module):
    def __init__(self, dim=16, classes=3, **overrides):
        super().__init__()
        self.config = {"dim": dim, "classes": classes, "label_smoothing": 0.1, "scales": [1, 2]}
        self.config.update(overrides)
        self.fc = nn.Linear(dim, classes)

    def forward(self, x):
        cfg = copy.deepcopy(self.config)
        cfg["batch"] = x.shape[0]
        extra = list(cfg["scales"]) + [x.shape[-1]]
        logits = self.fc(x) * (1 - cfg["label_smoothing"])
        return logits, cfg, extra


CASES = [("ConfiguredHead", ConfiguredHead, lambda: (torch.randn(2, 16),))]
