"""Project helpers that wrap torch's "am I being compiled?" queries, as many codebases do: a
helper returning torch.compiler.is_compiling() is as good a guard as the call itself, and one
returning torch.jit.is_scripting() is False under dynamo, so the print under it breaks."""
import torch
import torch.nn as nn


def is_compiling() -> bool:
    return torch.compiler.is_compiling()


def dynamo_active():
    return torch._dynamo.is_compiling()


def is_scripting() -> bool:
    return torch.jit.is_scripting()


class DebugHead(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        if not is_compiling():
            print("debug head output", h.shape)
        if dynamo_active():
            return h
        print("eager path")
        return h


class ScriptGuardHead(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        if not is_scripting():
            print("not scripted", h.shape)
        return h


CASES = [
    ("DebugHead", DebugHead, lambda: (torch.randn(2, 8),)),
    ("ScriptGuardHead", ScriptGuardHead, lambda: (torch.randn(2, 8),)),
]
