"""Activation checkpointing bodies with side effects: a print, an append to a list outside the
body, an attribute written on the module, and a .item() inside the checkpointed function."""
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class LoggedCheckpointBlock(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def _body(self, x):
        print("recomputing block")
        return self.fc(x).relu()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return checkpoint(self._body, x, use_reentrant=False)


class CollectingCheckpointStack(nn.Module):
    def __init__(self, dim=8, depth=2):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(dim, dim) for _ in range(depth))

    def forward(self, x: torch.Tensor):
        hidden = []

        def run(layer, h):
            out = layer(h).relu()
            hidden.append(out)
            return out

        for layer in self.layers:
            x = checkpoint(run, layer, x, use_reentrant=False)
        return x, hidden


class StatefulCheckpointBlock(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.calls = 0

    def _body(self, x):
        self.calls += 1
        return self.fc(x).tanh()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return checkpoint(self._body, x, use_reentrant=False)


class ScalarCheckpointBlock(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def _body(self, x):
        h = self.fc(x)
        return h / (h.abs().max().item() + 1.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return checkpoint(self._body, x, use_reentrant=False)


CASES = [
    ("LoggedCheckpointBlock", LoggedCheckpointBlock, lambda: (torch.randn(2, 8, requires_grad=True),)),
    ("CollectingCheckpointStack", CollectingCheckpointStack, lambda: (torch.randn(2, 8, requires_grad=True),)),
    ("StatefulCheckpointBlock", StatefulCheckpointBlock, lambda: (torch.randn(2, 8, requires_grad=True),)),
    ("ScalarCheckpointBlock", ScalarCheckpointBlock, lambda: (torch.randn(2, 8, requires_grad=True),)),
]
