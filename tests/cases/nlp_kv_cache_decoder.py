"""GPT-2 style decoder stack with a key/value cache for incremental decoding.

`past_key_values` is a tuple with one `(key, value)` pair per layer; position ids continue from
the cached length so a prompt can be processed once and extended token by token.
"""
import torch
from torch.nn import Module, Linear, LayerNorm, Embedding, ModuleList
import torch.nn.functional as F

from .nlp_utils import make_causal_mask, scaled_dot_product


class CachedSelfAttention(Module):
    def __init__(self, embed_dim=24, num_heads=3):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = embed_dim // num_heads
        self.c_attn = Linear(embed_dim, 3 * embed_dim)
        self.c_proj = Linear(embed_dim, embed_dim)

    def _split_heads(self, tensor):
        new_shape = tensor.size()[:-1] + (self.num_heads, self.head_dim)
        return tensor.view(new_shape).permute(0, 2, 1, 3)

    def forward(self, hidden_states, layer_past=None, use_cache=False):
        query, key, value = self.c_attn(hidden_states).split(self.num_heads * self.head_dim, dim=2)
        query, key, value = map(self._split_heads, (query, key, value))
        past_length = 0
        if layer_past is not None:
            past_key, past_value = layer_past
            past_length = past_key.shape[-2]
            key = torch.cat((past_key, key), dim=-2)
            value = torch.cat((past_value, value), dim=-2)
        present = (key, value) if use_cache is True else None
        bias = make_causal_mask(query.size(-2), query.dtype, past_length=past_length)
        attn_output, _ = scaled_dot_product(query, key, value, bias=bias)
        attn_output = attn_output.permute(0, 2, 1, 3).flatten(2)
        return self.c_proj(attn_output), present


class GPT2Block(Module):
    def __init__(self, embed_dim=24):
        super().__init__()
        self.ln_1 = LayerNorm(embed_dim)
        self.attn = CachedSelfAttention(embed_dim)
        self.ln_2 = LayerNorm(embed_dim)
        self.mlp_fc = Linear(embed_dim, 4 * embed_dim)
        self.mlp_proj = Linear(4 * embed_dim, embed_dim)

    def forward(self, hidden_states, layer_past=None, use_cache=False):
        attn_output, present = self.attn(self.ln_1(hidden_states), layer_past=layer_past, use_cache=use_cache)
        hidden_states = hidden_states + attn_output
        hidden_states = hidden_states + self.mlp_proj(F.gelu(self.mlp_fc(self.ln_2(hidden_states)), approximate="tanh"))
        return hidden_states, present


class GPT2Model(Module):
    def __init__(self, vocab_size=50, n_positions=32, embed_dim=24, n_layer=2):
        super().__init__()
        self.wte = Embedding(vocab_size, embed_dim)
        self.wpe = Embedding(n_positions, embed_dim)
        self.h = ModuleList([GPT2Block(embed_dim) for _ in range(n_layer)])
        self.ln_f = LayerNorm(embed_dim)

    def forward(self, input_ids, past_key_values=None, use_cache=True):
        if past_key_values is None:
            past_length = 0
            past_key_values = tuple([None] * len(self.h))
        else:
            past_length = past_key_values[0][0].size(-2)
        position_ids = torch.arange(past_length, input_ids.size(-1) + past_length, dtype=torch.long)
        hidden_states = self.wte(input_ids) + self.wpe(position_ids).unsqueeze(0)
        presents = () if use_cache else None
        for i, (block, layer_past) in enumerate(zip(self.h, past_key_values)):
            hidden_states, present = block(hidden_states, layer_past=layer_past, use_cache=use_cache)
            if use_cache is True:
                presents = presents + (present,)
        return self.ln_f(hidden_states), presents


def _cached_inputs():
    past = tuple((torch.randn(1, 3, 4, 8), torch.randn(1, 3, 4, 8)) for _ in range(2))
    return torch.tensor([[7]]), past


CASES = [
    ("GPT2Model-prompt", GPT2Model, lambda: (torch.tensor([[3, 14, 15, 9, 2]]),)),
    ("GPT2Model-step", GPT2Model, _cached_inputs),
]
