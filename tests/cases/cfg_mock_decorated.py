"""Helpers wrapped by unittest.mock and test decorators, as test-support code does: a
mock.patch.object-decorated forward helper, a mock.Mock callback, and copy.deepcopy of a
submodule config (the stdlib copy dynamo traces into)."""
import copy
from unittest import mock

import torch
import torch.nn as nn


class Hooks:
    @staticmethod
    def on_output(h):
        return h


class PatchedHookHead(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    @mock.patch.object(Hooks, "on_output", staticmethod(lambda h: h * 2))
    def _run(self, x):
        return Hooks.on_output(self.fc(x))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self._run(x)


class MockCallbackHead(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.callback = mock.Mock(return_value=None)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        self.callback(h.shape)
        return h


class CopiedSettingsHead(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.settings = {"scale": 0.5, "bias": [1.0, 2.0]}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        settings = copy.deepcopy(self.settings)
        return self.fc(x) * settings["scale"] + settings["bias"][0]


CASES = [
    ("PatchedHookHead", PatchedHookHead, lambda: (torch.randn(2, 8),)),
    ("MockCallbackHead", MockCallbackHead, lambda: (torch.randn(2, 8),)),
    ("CopiedSettingsHead", CopiedSettingsHead, lambda: (torch.randn(2, 8),)),
]
