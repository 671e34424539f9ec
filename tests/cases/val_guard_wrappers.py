"""Guards wrapped the ways libraries wrap them: a static method, a helper combining
is_scripting() and is_compiling(), and a module-level flag helper returning
torch.jit.is_tracing() (False under dynamo, so the print under `not` it breaks)."""
import torch
import torch.nn as nn


def exporting_or_compiling() -> bool:
    return torch.jit.is_scripting() or torch.compiler.is_compiling()


def is_tracing() -> bool:
    return torch.jit.is_tracing()


class StaticGuardHead(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    @staticmethod
    def _compiling():
        return torch.compiler.is_compiling()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        if not self._compiling():
            print("eager statistics", h.mean())
        if not exporting_or_compiling():
            print("eager only")
        return h


class TracingGuardHead(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        if not is_tracing():
            print("not traced")
        return h


CASES = [
    ("StaticGuardHead", StaticGuardHead, lambda: (torch.randn(2, 8),)),
    ("TracingGuardHead", TracingGuardHead, lambda: (torch.randn(2, 8),)),
]
