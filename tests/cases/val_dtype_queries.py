"""Mixed-precision helpers that ask torch about dtypes: promote_types, result_type, finfo,
iinfo, is_floating_point, get_default_dtype give Python values dynamo specialises on, so
branching on them traces."""
import torch
import torch.nn as nn


class PromotedAdd(nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        dtype = torch.result_type(x, y)
        if dtype in (torch.float16, torch.bfloat16):
            x, y = x.float(), y.float()
        return x + y


class SafeLogits(nn.Module):
    def forward(self, logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        if torch.is_floating_point(logits) and logits.dtype != torch.get_default_dtype():
            logits = logits.to(torch.get_default_dtype())
        fill = torch.finfo(logits.dtype).min
        return logits.masked_fill(~mask, fill)


class IndexClamp(nn.Module):
    def forward(self, x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
        limit = torch.iinfo(index.dtype).max
        if limit > 2 ** 40 and torch.is_tensor(index):
            index = index.clamp(max=x.shape[-1] - 1)
        return x.gather(-1, index)


class CastCheck(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        target = torch.promote_types(x.dtype, torch.float32)
        if torch.can_cast(x.dtype, target) and target is not x.dtype:
            return x.to(target)
        return x * 1.0


CASES = [
    ("PromotedAdd", PromotedAdd, lambda: (torch.randn(2, 4), torch.randn(2, 4))),
    ("SafeLogits", SafeLogits, lambda: (torch.randn(2, 4), torch.rand(2, 4) > 0.5)),
    ("IndexClamp", IndexClamp, lambda: (torch.randn(2, 4), torch.tensor([[0, 3], [1, 2]]))),
    ("CastCheck", CastCheck, lambda: (torch.randn(2, 4).half(),)),
]
