"""Mistral-style decoder layer with sliding-window causal attention and an RMSNorm pre-norm.

Each query attends to at most `sliding_window` previous tokens. The mask is prepared once per
forward from the optional 2D padding mask, following `_prepare_4d_causal_attention_mask`.
"""
import copy
import logging
import math
from dataclasses import dataclass

import torch as th
import torch.nn as nn

logger = logging.getLogger(__name__)


@dataclass
class MistralConfig:
    hidden_size: int = 32
    num_attention_heads: int = 4
    intermediate_size: int = 64
    sliding_window: int = 3
    rms_norm_eps: float = 1e-6
    use_sdpa: bool = False


class MistralRMSNorm(nn.Module):
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(th.ones(hidden_size))
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(th.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * th.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)


def prepare_sliding_window_mask(attention_mask, seq_len, sliding_window, dtype):
    min_value = th.finfo(dtype).min
    rows = th.arange(seq_len).view(-1, 1)
    cols = th.arange(seq_len).view(1, -1)
    allowed = (cols <= rows) & (cols > rows - sliding_window)
    if attention_mask is not None:
        assert attention_mask.dim() == 2, "expected a (batch, seq_len) padding mask"
        allowed = allowed[None, None] & attention_mask[:, None, None, :].bool()
    else:
        allowed = allowed[None, None]
    return th.zeros(allowed.shape, dtype=dtype).masked_fill(~allowed, min_value)


class MistralDecoderLayer(nn.Module):
    def __init__(self, config=None):
        super().__init__()
        config = config or MistralConfig()
        self.config = copy.deepcopy(config)
        self.num_heads = config.num_attention_heads
        self.head_dim = config.hidden_size // config.num_attention_heads
        self.qkv_proj = nn.Linear(config.hidden_size, 3 * config.hidden_size, bias=False)
        self.o_proj = nn.Linear(config.hidden_size, config.hidden_size, bias=False)
        self.mlp = nn.Sequential(nn.Linear(config.hidden_size, config.intermediate_size), nn.SiLU(),
                                 nn.Linear(config.intermediate_size, config.hidden_size))
        self.input_layernorm = MistralRMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.post_attention_layernorm = MistralRMSNorm(config.hidden_size, eps=config.rms_norm_eps)

    def forward(self, hidden_states, attention_mask=None):
        bsz, q_len, _ = hidden_states.shape
        if q_len <= self.config.sliding_window and not th.compiler.is_compiling():
            logger.info("sequence fits in the sliding window; the window mask is a plain causal mask")
        mask = prepare_sliding_window_mask(attention_mask, q_len, self.config.sliding_window, hidden_states.dtype)

        residual = hidden_states
        hidden_states = self.input_layernorm(hidden_states)
        q, k, v = self.qkv_proj(hidden_states).view(bsz, q_len, 3, self.num_heads, self.head_dim).unbind(2)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        if self.config.use_sdpa:
            attn = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        else:
            weights = th.matmul(q, k.transpose(2, 3)) / math.sqrt(self.head_dim) + mask
            attn = th.matmul(weights.softmax(-1), v)
        hidden_states = residual + self.o_proj(attn.transpose(1, 2).reshape(bsz, q_len, -1))

        residual = hidden_states
        return residual + self.mlp(self.post_attention_layernorm(hidden_states))


CASES = [
    ("MistralDecoderLayer-padded", MistralDecoderLayer,
     lambda: (th.randn(2, 6, 32), th.tensor([[1, 1, 1, 1, 1, 1], [0, 0, 1, 1, 1, 1]]))),
    ("MistralDecoderLayer-sdpa", lambda: MistralDecoderLayer(MistralConfig(use_sdpa=True)),
     lambda: (th.randn(1, 5, 32),)),
    ("MistralDecoderLayer-short", MistralDecoderLayer, lambda: (th.randn(1, 3, 32),)),
]
