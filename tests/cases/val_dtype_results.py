"""Dtype arithmetic in a mixed-precision block: dynamo 2.13 folds torch.promote_types on
dtypes, but result_type of a tensor and can_cast are torch ops that give no tensor."""
import torch
import torch.nn as nn


class ScalarResultType(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out_dtype = torch.result_type(x, 2.0)
        return (x * 2.0).to(out_dtype)


class ConstantCanCast(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.can_cast(torch.float16, torch.float32):
            return x.float()
        return x


class ConstantPromote(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dtype = torch.promote_types(torch.float16, x.dtype)
        if dtype in (torch.float16, torch.bfloat16):
            return x.float()
        return x.to(dtype)


CASES = [
    ("ScalarResultType", ScalarResultType, lambda: (torch.randn(2, 4),)),
    ("ConstantCanCast", ConstantCanCast, lambda: (torch.randn(2, 4),)),
    ("ConstantPromote", ConstantPromote, lambda: (torch.randn(2, 4),)),
]
