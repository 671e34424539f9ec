"""BLOOM / MPT style attention with ALiBi (attention with linear biases) instead of position embeddings.

Slopes follow the geometric sequence of Press et al.; for head counts that are not a power of
two the extra heads take every other slope of the next power of two.
"""
import math
import warnings

import torch
from torch import nn
import torch.nn.functional as F


def get_alibi_slopes(num_heads):
    closest_power_of_2 = 2 ** math.floor(math.log2(num_heads))
    base = 2 ** (-(2 ** -(math.log2(closest_power_of_2) - 3)))
    slopes = [base ** (i + 1) for i in range(closest_power_of_2)]
    if closest_power_of_2 != num_heads:
        extra_base = 2 ** (-(2 ** -(math.log2(2 * closest_power_of_2) - 3)))
        num_remaining = min(closest_power_of_2, num_heads - closest_power_of_2)
        slopes += [extra_base ** (i + 1) for i in range(0, 2 * num_remaining, 2)]
    return torch.tensor(slopes, dtype=torch.float32)


def build_alibi_tensor(attention_mask, slopes, dtype):
    """(batch, heads, 1, seq) bias; positions count only non-padded tokens, as in BLOOM."""
    arange_tensor = ((attention_mask.cumsum(dim=-1) - 1) * attention_mask)[:, None, :]
    alibi = slopes[None, :, None] * arange_tensor
    return alibi.unsqueeze(2).to(dtype)


class AlibiSelfAttention(nn.Module):
    def __init__(self, hidden_size=24, num_heads=6, attention_dropout=0.0, max_positions=64):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.max_positions = max_positions
        self.inv_norm_factor = 1.0 / math.sqrt(self.head_dim)
        self.query_key_value = nn.Linear(hidden_size, 3 * hidden_size)
        self.dense = nn.Linear(hidden_size, hidden_size)
        self.attention_dropout = nn.Dropout(attention_dropout)
        self.register_buffer("slopes", get_alibi_slopes(num_heads), persistent=False)

    def _split_heads(self, fused_qkv):
        batch_size, seq_length, three_times_hidden = fused_qkv.shape
        fused_qkv = fused_qkv.view(batch_size, seq_length, self.num_heads, 3, self.head_dim)
        return fused_qkv[..., 0, :], fused_qkv[..., 1, :], fused_qkv[..., 2, :]

    def forward(self, hidden_states, attention_mask):
        if hidden_states.shape[1] > self.max_positions:
            warnings.warn("sequence is longer than the extrapolation range used in training")
        batch_size, q_length, _ = hidden_states.shape
        query, key, value = [t.transpose(1, 2) for t in self._split_heads(self.query_key_value(hidden_states))]
        alibi = build_alibi_tensor(attention_mask, self.slopes, hidden_states.dtype)
        scores = alibi + torch.matmul(query, key.transpose(-1, -2)) * self.inv_norm_factor
        causal = torch.ones(q_length, q_length, dtype=torch.bool).triu(1)
        padding = attention_mask[:, None, None, :] == 0
        scores = scores.masked_fill(causal | padding, torch.finfo(scores.dtype).min)
        probs = self.attention_dropout(F.softmax(scores, dim=-1, dtype=torch.float32).to(value.dtype))
        context = torch.matmul(probs, value).permute(0, 2, 1, 3).reshape(batch_size, q_length, -1)
        return self.dense(context)


CASES = [
    ("AlibiSelfAttention", AlibiSelfAttention,
     lambda: (torch.randn(2, 5, 24), torch.tensor([[0, 1, 1, 1, 1], [1, 1, 1, 1, 1]]))),
]
