"""A classifier that reports diagnostics only when it runs eagerly."""
import logging
import warnings

import torch
import torch.nn as nn

log = logging.getLogger("classifier.diagnostics")


class DiagnosedClassifier(nn.Module):
    def __init__(self, dim=16, classes=4):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(dim, 32), nn.ReLU())
        self.head = nn.Linear(32, classes)
        self.history = []

    def forward(self, x):
        h = self.body(x)
        if not torch.compiler.is_compiling():
            dead = (h == 0).float().mean().item()
            self.history.append(dead)
            print(f"dead units: {dead:.2%}")
            log.info("batch of %d, dead units %.3f", x.shape[0], dead)
            if dead > 0.9:
                warnings.warn("most ReLU units are inactive")
        return self.head(h)


CASES = [("DiagnosedClassifier", DiagnosedClassifier, lambda: (torch.randn(4, 16),))]
