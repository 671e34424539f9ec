"""Local definitions in the compiled code: a class built inside a helper that forward calls
(dynamo 2.13 cannot run __build_class__), next to a local function, which it traces."""
import torch
import torch.nn as nn


def make_gate(scale):
    class Gate:
        def __init__(self, s):
            self.s = s

        def apply(self, t):
            return torch.sigmoid(t) * self.s

    return Gate(scale)


class HelperGate(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.fc(x))
        return make_gate(2.0).apply(h) + h


class LocalFunctionGate(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        def gate(t, s=2.0):
            return torch.sigmoid(t) * s

        h = torch.relu(self.fc(x))
        return gate(h) + h


CASES = [
    ("HelperGate", HelperGate, lambda: (torch.randn(2, 8),)),
    ("LocalFunctionGate", LocalFunctionGate, lambda: (torch.randn(2, 8),)),
]
