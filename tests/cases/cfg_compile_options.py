"""torch.compile options that do not change where the graph breaks: dynamic=True,
dynamic=False and backend="eager" on decorated functions; the .item() breaks under each."""
import torch


@torch.compile(dynamic=True)
def centered(x: torch.Tensor) -> torch.Tensor:
    return x - x.mean().item()


@torch.compile(backend="eager", dynamic=False)
def clipped(x: torch.Tensor, limit: float = 2.0) -> torch.Tensor:
    return x.clamp(-limit, limit) * x.shape[0]


@torch.compile(backend="eager", mode=None)
def shifted(x: torch.Tensor) -> torch.Tensor:
    shift = x.min().item()
    return x - shift


CASES = [
    ("centered", lambda: centered, lambda: (torch.randn(4, 8),)),
    ("clipped", lambda: clipped, lambda: (torch.randn(4, 8),)),
    ("shifted", lambda: shifted, lambda: (torch.randn(4, 8),)),
]
