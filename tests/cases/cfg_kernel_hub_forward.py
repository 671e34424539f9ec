"""A layer whose forward a project decorator may replace with a kernel from a registry, as
`@use_kernel_forward_from_hub("RMSNorm")` does in transformers. The registry is empty by
default, so the decorated class keeps its own forward; setting KERNEL_REGISTRY["RMSNorm"]
(a configuration the library exposes) swaps in the kernel forward."""
import torch
import torch.nn as nn

KERNEL_REGISTRY = {}


def use_kernel_forward_from_hub(layer_name: str):
    def decorator(cls):
        kernel = KERNEL_REGISTRY.get(layer_name)
        if kernel is not None:
            cls.forward = kernel
        return cls
    return decorator


@use_kernel_forward_from_hub("RMSNorm")
class RMSNorm(nn.Module):
    def __init__(self, dim=8, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        variance = x.pow(2).mean(-1, keepdim=True)
        return self.weight * x * torch.rsqrt(variance + self.eps)


@use_kernel_forward_from_hub("SiluAndMul")
class SiluAndMul(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate, up = x.chunk(2, dim=-1)
        return nn.functional.silu(gate) * up


@use_kernel_forward_from_hub("RMSNorm")
class LoggedRMSNorm(nn.Module):
    def __init__(self, dim=8, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        variance = x.pow(2).mean(-1, keepdim=True)
        print("rms", variance.mean())
        return self.weight * x * torch.rsqrt(variance + self.eps)


CASES = [
    ("RMSNorm", RMSNorm, lambda: (torch.randn(2, 8),)),
    ("SiluAndMul", SiluAndMul, lambda: (torch.randn(2, 8),)),
    ("LoggedRMSNorm", LoggedRMSNorm, lambda: (torch.randn(2, 8),)),
]
