"""Llama-style causal self-attention with rotary position embeddings and grouped key/value heads.

The rotary table is cached and grown on demand when a longer sequence arrives, as in
`LlamaRotaryEmbedding` of HuggingFace transformers.
"""
import math

import torch
import torch.nn as nn

from .nlp_utils import apply_rotary_pos_emb


class RotaryEmbedding(nn.Module):
    def __init__(self, dim, max_position_embeddings=8, base=10000.0):
        super().__init__()
        self.dim = dim
        self.base = base
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self._set_cos_sin_cache(max_position_embeddings)

    def _set_cos_sin_cache(self, seq_len):
        self.max_seq_len_cached = seq_len
        t = torch.arange(seq_len, dtype=self.inv_freq.dtype)
        freqs = torch.outer(t, self.inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", emb.cos(), persistent=False)
        self.register_buffer("sin_cached", emb.sin(), persistent=False)

    def forward(self, x, seq_len=None):
        if seq_len > self.max_seq_len_cached:
            self._set_cos_sin_cache(seq_len)
        return self.cos_cached[:seq_len].to(x.dtype), self.sin_cached[:seq_len].to(x.dtype)


class LlamaAttention(nn.Module):
    def __init__(self, hidden_size=32, num_heads=4, num_key_value_heads=2, max_position_embeddings=8):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.num_key_value_heads = num_key_value_heads
        self.num_key_value_groups = num_heads // num_key_value_heads
        if self.head_dim * num_heads != hidden_size:
            raise ValueError(f"hidden_size must be divisible by num_heads (got {hidden_size} and {num_heads})")
        self.q_proj = nn.Linear(hidden_size, num_heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(hidden_size, num_key_value_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(hidden_size, num_key_value_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(num_heads * self.head_dim, hidden_size, bias=False)
        self.rotary_emb = RotaryEmbedding(self.head_dim, max_position_embeddings=max_position_embeddings)

    def forward(self, hidden_states, attention_mask=None):
        bsz, q_len, _ = hidden_states.size()
        q = self.q_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(hidden_states).view(bsz, q_len, self.num_key_value_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(hidden_states).view(bsz, q_len, self.num_key_value_heads, self.head_dim).transpose(1, 2)

        cos, sin = self.rotary_emb(v, seq_len=k.shape[-2])
        q, k = apply_rotary_pos_emb(q, k, cos, sin)
        k = k.repeat_interleave(self.num_key_value_groups, dim=1)
        v = v.repeat_interleave(self.num_key_value_groups, dim=1)

        attn_weights = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.head_dim)
        if attn_weights.size() != (bsz, self.num_heads, q_len, q_len):
            raise ValueError(f"Attention weights should be of size {(bsz, self.num_heads, q_len, q_len)}, "
                             f"but is {attn_weights.size()}")
        causal = torch.full((q_len, q_len), torch.finfo(attn_weights.dtype).min).triu(1)
        attn_weights = attn_weights + causal
        if attention_mask is not None:
            attn_weights = attn_weights.masked_fill(~attention_mask[:, None, None, :].bool(),
                                                    torch.finfo(attn_weights.dtype).min)
        attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(q.dtype)
        attn_output = torch.matmul(attn_weights, v).transpose(1, 2).reshape(bsz, q_len, -1)
        return self.o_proj(attn_output)


CASES = [
    ("LlamaAttention-short", LlamaAttention, lambda: (torch.randn(2, 6, 32),)),
    ("LlamaAttention-grow", LlamaAttention,
     lambda: (torch.randn(1, 11, 32), torch.tensor([[1] * 9 + [0] * 2]))),
]
