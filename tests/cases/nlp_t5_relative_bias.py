"""T5 relative position bias: log-spaced buckets shared by all layers of a stack.

Only the first layer owns the bias embedding; later layers reuse the bias it returns, as in
`T5Attention.compute_bias` of HuggingFace transformers.
"""
import math

import torch
import torch.nn as nn


class T5RelativeAttention(nn.Module):
    def __init__(self, d_model=16, n_heads=2, num_buckets=8, max_distance=16,
                 is_decoder=False, has_relative_attention_bias=False):
        super().__init__()
        self.n_heads = n_heads
        self.key_value_proj_dim = d_model // n_heads
        self.is_decoder = is_decoder
        self.relative_attention_num_buckets = num_buckets
        self.relative_attention_max_distance = max_distance
        self.has_relative_attention_bias = has_relative_attention_bias
        self.q = nn.Linear(d_model, d_model, bias=False)
        self.k = nn.Linear(d_model, d_model, bias=False)
        self.v = nn.Linear(d_model, d_model, bias=False)
        self.o = nn.Linear(d_model, d_model, bias=False)
        if self.has_relative_attention_bias:
            self.relative_attention_bias = nn.Embedding(num_buckets, n_heads)

    @staticmethod
    def _relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
        relative_buckets = 0
        if bidirectional:
            num_buckets //= 2
            relative_buckets += (relative_position > 0).to(torch.long) * num_buckets
            relative_position = torch.abs(relative_position)
        else:
            relative_position = -torch.min(relative_position, torch.zeros_like(relative_position))
        max_exact = num_buckets // 2
        is_small = relative_position < max_exact
        relative_position_if_large = max_exact + (
            torch.log(relative_position.float() / max_exact)
            / math.log(max_distance / max_exact)
            * (num_buckets - max_exact)
        ).to(torch.long)
        relative_position_if_large = torch.min(
            relative_position_if_large, torch.full_like(relative_position_if_large, num_buckets - 1)
        )
        relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
        return relative_buckets

    def compute_bias(self, query_length, key_length, device=None):
        context_position = torch.arange(query_length, dtype=torch.long, device=device)[:, None]
        memory_position = torch.arange(key_length, dtype=torch.long, device=device)[None, :]
        relative_position = memory_position - context_position
        buckets = self._relative_position_bucket(
            relative_position,
            bidirectional=(not self.is_decoder),
            num_buckets=self.relative_attention_num_buckets,
            max_distance=self.relative_attention_max_distance,
        )
        values = self.relative_attention_bias(buckets)
        return values.permute([2, 0, 1]).unsqueeze(0)

    def forward(self, hidden_states, position_bias=None):
        batch_size, seq_length = hidden_states.shape[:2]
        shape = lambda s: s.view(batch_size, -1, self.n_heads, self.key_value_proj_dim).transpose(1, 2)
        q, k, v = shape(self.q(hidden_states)), shape(self.k(hidden_states)), shape(self.v(hidden_states))
        scores = torch.matmul(q, k.transpose(3, 2))
        if position_bias is None:
            if not self.has_relative_attention_bias:
                position_bias = torch.zeros((1, self.n_heads, seq_length, seq_length), dtype=scores.dtype)
            else:
                position_bias = self.compute_bias(seq_length, seq_length, device=scores.device)
        attn = nn.functional.softmax((scores + position_bias).float(), dim=-1).type_as(scores)
        out = torch.matmul(attn, v).transpose(1, 2).contiguous().view(batch_size, -1, self.n_heads * self.key_value_proj_dim)
        return self.o(out), position_bias


class T5Stack(nn.Module):
    def __init__(self, num_layers=3, is_decoder=False):
        super().__init__()
        self.block = nn.ModuleList(
            [T5RelativeAttention(is_decoder=is_decoder, has_relative_attention_bias=bool(i == 0)) for i in range(num_layers)]
        )
        self.final_layer_norm = nn.LayerNorm(16)

    def forward(self, hidden_states):
        position_bias = None
        for i, layer_module in enumerate(self.block):
            residual = hidden_states
            hidden_states, position_bias = layer_module(hidden_states, position_bias=position_bias)
            hidden_states = residual + hidden_states
        return self.final_layer_norm(hidden_states)


CASES = [
    ("T5Stack-encoder", T5Stack, lambda: (torch.randn(2, 7, 16),)),
    ("T5Stack-decoder", lambda: T5Stack(is_decoder=True), lambda: (torch.randn(1, 5, 16),)),
]
