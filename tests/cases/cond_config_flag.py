"""Breaks reached only under one value of a constructor flag: the default configuration is
what a model built with defaults does (`-default`), the other value is `-debug`
(--staticfx-configuration=any reports it, labelled `with debug=True`)."""
import torch
import torch.nn as nn


class DebugPrint(nn.Module):
    def __init__(self, dim=8, debug=False):
        super().__init__()
        self.debug = debug
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.proj(x)
        if self.debug:
            print("activation scale", h.abs().mean())
        return h.relu()


class CheckedUnlessDebug(nn.Module):
    """The default configuration breaks: it drops the rows a debugging run keeps."""

    def __init__(self, dim=8, debug=False):
        super().__init__()
        self.debug = debug
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.proj(x)
        if not self.debug:
            h = h[h.sum(-1) > 0]
        return h.mean(0)


class AlwaysScaled(nn.Module):
    """Near miss: the break does not depend on the flag."""

    def __init__(self, dim=8, debug=False):
        super().__init__()
        self.debug = debug
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.proj(x)
        if self.debug:
            h = h * 2
        return h / h.abs().max().item()


CASES = [
    ("DebugPrint-default", DebugPrint, lambda: (torch.randn(4, 8),)),
    ("DebugPrint-debug", lambda: DebugPrint(debug=True), lambda: (torch.randn(4, 8),)),
    ("CheckedUnlessDebug-default", CheckedUnlessDebug, lambda: (torch.randn(4, 8),)),
    ("CheckedUnlessDebug-debug", lambda: CheckedUnlessDebug(debug=True), lambda: (torch.randn(4, 8),)),
    ("AlwaysScaled-default", AlwaysScaled, lambda: (torch.randn(4, 8),)),
    ("AlwaysScaled-debug", lambda: AlwaysScaled(debug=True), lambda: (torch.randn(4, 8),)),
]
