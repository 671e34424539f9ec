"""torch._dynamo.step_unsupported() marks a step dynamo must not trace; a model calling it
after its projection, next to one that only checks is_compiling()."""
import torch
import torch.nn as nn


class StepUnsupportedHead(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        torch._dynamo.step_unsupported()
        return torch.relu(h)


class StepUnsupportedAfterBlock(nn.Module):
    """Three ops traced before the call."""

    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.fc(x))
        h = self.out(h) * 2
        torch._dynamo.step_unsupported()
        return torch.relu(h) + 1


class CompilingOnlyHead(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        if torch.compiler.is_compiling():
            h = h * 1.0
        return torch.relu(h)


CASES = [
    ("StepUnsupportedHead", StepUnsupportedHead, lambda: (torch.randn(2, 8),)),
    ("StepUnsupportedAfterBlock", StepUnsupportedAfterBlock, lambda: (torch.randn(2, 8),)),
    ("CompilingOnlyHead", CompilingOnlyHead, lambda: (torch.randn(2, 8),)),
]
