"""Checks written as compiler hints (transformers' torch_compilable_check): under dynamo the
helper calls torch._check_tensor_all on a tensor condition, whose `.item()` inside torch breaks
(GB0124); torch._check on a Python bool (a shape test) traces."""
import os

import torch
import torch.nn as nn


def is_tracing():
    return torch.compiler.is_compiling() or torch.jit.is_tracing()


def compilable_check(cond, msg):
    if os.getenv("CASES_DISABLE_TORCH_CHECK", "0") == "1":
        return
    if is_tracing():
        if isinstance(cond, torch.Tensor):
            torch._check_tensor_all(cond)
        else:
            torch._check(cond)
        return
    if not cond:
        raise ValueError(msg)


class TokenCountCheck(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, tokens: torch.Tensor, features: torch.Tensor) -> torch.Tensor:
        n_tokens = (tokens == 3).sum()
        compilable_check(n_tokens * features.shape[-1] == features.numel(),
                         f"tokens: {n_tokens}, features: {features.shape[0]}")
        return self.fc(features)


class FeatureWidthCheck(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, tokens: torch.Tensor, features: torch.Tensor) -> torch.Tensor:
        compilable_check(features.shape[-1] == 8, f"expected 8 features, got {features.shape[-1]}")
        return self.fc(features)


class DirectTensorCheck(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        torch._check_tensor_all(x.abs() >= 0)
        return x * 2


class DirectShapeCheck(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        torch._check(x.shape[0] > 0)
        return x * 2


CASES = [
    ("TokenCountCheck", TokenCountCheck, lambda: (torch.tensor([3, 1, 3]), torch.randn(2, 8))),
    ("FeatureWidthCheck", FeatureWidthCheck, lambda: (torch.tensor([3, 1, 3]), torch.randn(2, 8))),
    ("DirectTensorCheck", DirectTensorCheck, lambda: (torch.randn(2, 8),)),
    ("DirectShapeCheck", DirectShapeCheck, lambda: (torch.randn(2, 8),)),
]
