"""Compile guards as utility modules spell them: a module attribute alias of
torch.compiler.is_compiling, a helper that only forwards to another helper, and one that
returns torch._dynamo.is_compiling() under a different name."""
import torch
import torch.nn as nn

is_compiling = torch.compiler.is_compiling


def _dynamo_is_compiling():
    return torch._dynamo.is_compiling()


def is_torchdynamo_compiling():
    return _dynamo_is_compiling()


def in_eager_mode() -> bool:
    return not is_torchdynamo_compiling()


class AliasGuardedNorm(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.norm(x)
        if not is_compiling():
            print("norm output range", h.min().item(), h.max().item())
        return h


class WrappedGuardNorm(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.norm(x)
        if in_eager_mode():
            print("eager norm", h.abs().max().item())
        if not is_torchdynamo_compiling():
            h = h + 0.0 * h.sum().item()
        return h


class UnguardedNorm(nn.Module):
    """The near miss: the same statistics without the guard break on the print."""

    def __init__(self, dim=8):
        super().__init__()
        self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.norm(x)
        print("norm output", h.shape)
        return h


CASES = [
    ("AliasGuardedNorm", AliasGuardedNorm, lambda: (torch.randn(2, 8),)),
    ("WrappedGuardNorm", WrappedGuardNorm, lambda: (torch.randn(2, 8),)),
    ("UnguardedNorm", UnguardedNorm, lambda: (torch.randn(2, 8),)),
]
