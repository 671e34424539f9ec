"""A helper that tells dynamo, in its own @torch._dynamo.config.patch, to drop its logger's info
calls: the call splits the graph (GB0142), and inside the helper, compiled as its own frame, the
ignored call is no break, so what breaks there is the print after it."""
import logging

import torch
import torch.nn as nn

logger = logging.getLogger(__name__)


@torch._dynamo.config.patch(ignore_logger_methods={logger.info})
def logged_step(h: torch.Tensor) -> torch.Tensor:
    h = h * 2
    logger.info("norm %s", h.shape)
    print("stepped")
    return h + 1


@torch._dynamo.config.patch(ignore_logger_methods={logger.info})
def quiet_step(h: torch.Tensor) -> torch.Tensor:
    h = h * 2
    logger.info("norm %s", h.shape)
    return h + 1


@torch._dynamo.config.patch(cache_size_limit=16)
def warned_step(h: torch.Tensor) -> torch.Tensor:
    h = h * 2
    logger.info("norm %s", h.shape)
    print("stepped")
    return h + 1


class PatchedLoggedStep(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return logged_step(self.fc(x))


class PatchedQuietStep(nn.Module):
    """Near miss: only the ignored call in the patched helper."""

    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return quiet_step(self.fc(x))


class PatchedElsewhereStep(nn.Module):
    """Near miss: the patch names another setting, so the logger call breaks."""

    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return warned_step(self.fc(x))


CASES = [
    ("PatchedLoggedStep", PatchedLoggedStep, lambda: (torch.randn(2, 8),)),
    ("PatchedQuietStep", PatchedQuietStep, lambda: (torch.randn(2, 8),)),
    ("PatchedElsewhereStep", PatchedElsewhereStep, lambda: (torch.randn(2, 8),)),
]
