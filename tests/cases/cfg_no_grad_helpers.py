"""Helpers decorated with torch's grad-mode decorators, called from forward: @torch.no_grad()
on a target builder, @torch.enable_grad() inside a no-grad region, and @torch.inference_mode()."""
import torch
import torch.nn as nn


@torch.no_grad()
def momentum_targets(teacher: nn.Module, x: torch.Tensor) -> torch.Tensor:
    return teacher(x).softmax(-1)


@torch.inference_mode()
def frozen_features(encoder: nn.Module, x: torch.Tensor) -> torch.Tensor:
    return encoder(x)


class Distiller(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.student = nn.Linear(dim, 4)
        self.teacher = nn.Linear(dim, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        targets = momentum_targets(self.teacher, x)
        return -(targets * self.student(x).log_softmax(-1)).sum(-1).mean()


class RefinedPrior(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.prior = nn.Linear(dim, dim)

    @torch.no_grad()
    def prior_of(self, x):
        return self.prior(x).tanh()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.prior_of(x)


class FrozenEncoderHead(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.encoder = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        feats = frozen_features(self.encoder, x)
        return self.head(feats.clone())


CASES = [
    ("Distiller", Distiller, lambda: (torch.randn(2, 8),)),
    ("RefinedPrior", RefinedPrior, lambda: (torch.randn(2, 8),)),
    ("FrozenEncoderHead", FrozenEncoderHead, lambda: (torch.randn(2, 8),)),
]
