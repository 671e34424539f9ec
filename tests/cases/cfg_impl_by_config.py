"""An attention layer that picks its implementation from a table by `config.attn_impl`, as
model libraries do ("eager", "sdpa", ...): the default "sdpa" traces; "eager_debug" (the
flagged one) prints the attention entropy."""
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class AttentionConfig:
    dim: int = 8
    heads: int = 2
    attn_impl: str = "sdpa"


def sdpa_attention(q, k, v):
    return F.scaled_dot_product_attention(q, k, v)


def eager_attention(q, k, v):
    weights = (q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5).softmax(-1)
    return weights @ v


def eager_debug_attention(q, k, v):
    weights = (q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5).softmax(-1)
    print("attention entropy", -(weights * weights.log()).sum(-1).mean().item())
    return weights @ v


ATTENTION_FUNCTIONS = {"sdpa": sdpa_attention, "eager": eager_attention, "eager_debug": eager_debug_attention}


class ConfiguredAttention(nn.Module):
    def __init__(self, config: AttentionConfig = AttentionConfig()):
        super().__init__()
        self.config = config
        self.qkv = nn.Linear(config.dim, 3 * config.dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, _ = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.config.heads, -1).permute(2, 0, 3, 1, 4)
        attend = ATTENTION_FUNCTIONS[self.config.attn_impl]
        return attend(q, k, v).transpose(1, 2).reshape(b, n, -1)


class DebugAttention(ConfiguredAttention):
    def __init__(self):
        super().__init__(AttentionConfig(attn_impl="eager_debug"))


CASES = [
    ("ConfiguredAttention", ConfiguredAttention, lambda: (torch.randn(2, 4, 8),)),
    ("DebugAttention", DebugAttention, lambda: (torch.randn(2, 4, 8),)),
]
