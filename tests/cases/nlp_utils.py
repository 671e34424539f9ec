"""Tensor utilities shared by the sequence models of this package (masks, rotary helpers, batching)."""
import math

import torch
from torch.nn import functional as F


def rotate_half(x):
    """Rotate the last dimension by half: (x1, x2) -> (-x2, x1)."""
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin):
    """Apply RoPE to queries and keys; `cos`/`sin` broadcast over batch and heads."""
    cos = cos[None, None, :, :]
    sin = sin[None, None, :, :]
    return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)


def lengths_to_padding_mask(lengths, max_len=None):
    """True at padded positions, as fairseq's `lengths_to_padding_mask`."""
    if max_len is None:
        max_len = int(lengths.max())
    positions = torch.arange(max_len, device=lengths.device)
    return positions[None, :] >= lengths[:, None]


def trim_batch(input_ids, attention_mask, pad_token_id=0):
    """Drop the columns that hold only padding (HF `trim_batch`)."""
    keep = input_ids.ne(pad_token_id).any(dim=0)
    return input_ids[:, keep], attention_mask[:, keep]


def make_causal_mask(length, dtype, device=None, past_length=0):
    """Additive causal mask of shape (length, past_length + length)."""
    mask = torch.full((length, length), torch.finfo(dtype).min, device=device)
    mask = torch.triu(mask, diagonal=1).to(dtype)
    if past_length > 0:
        mask = torch.cat([torch.zeros(length, past_length, dtype=dtype, device=device), mask], dim=-1)
    return mask


def scaled_dot_product(q, k, v, bias=None, dropout=0.0, training=False):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if bias is not None:
        scores = scores + bias
    probs = F.softmax(scores.float(), dim=-1).type_as(scores)
    probs = F.dropout(probs, p=dropout, training=training)
    return probs @ v, probs
