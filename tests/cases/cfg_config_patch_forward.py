"""Settings scoped with @torch._dynamo.config.patch on helpers the forward calls: dynamo
cannot enter the patch's context manager, so the call splits the graph; the helper then
compiles as its own frame with the patch on."""
import torch
import torch.nn as nn


@torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True)
def positive_rows(h: torch.Tensor) -> torch.Tensor:
    return h[h.sum(-1) > 0]


@torch._dynamo.config.patch(capture_scalar_outputs=True)
def peak_normalized(h: torch.Tensor) -> torch.Tensor:
    return h / (h.abs().max().item() + 1.0)


@torch._dynamo.config.patch(cache_size_limit=16)
def mean_centered(h: torch.Tensor) -> torch.Tensor:
    return h - h.mean().item()


class PatchedRowFilter(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return positive_rows(self.fc(x))


class PatchedScaledHead(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x).relu()
        return peak_normalized(h) * 2


class PatchedElsewhere(nn.Module):
    """The near miss: the patch names a setting that does not capture .item()."""

    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return mean_centered(self.fc(x))


CASES = [
    ("PatchedRowFilter", PatchedRowFilter, lambda: (torch.randn(4, 8),)),
    ("PatchedScaledHead", PatchedScaledHead, lambda: (torch.randn(2, 8),)),
    ("PatchedElsewhere", PatchedElsewhere, lambda: (torch.randn(2, 8),)),
]
