"""Cross-attention layer with pluggable attention processors (diffusers style).

`Attention` owns the projections; the math lives in a processor object so that alternative
kernels (scaled-dot-product, sliced, LoRA) can be swapped in with `set_processor`. Unknown
`cross_attention_kwargs` are filtered against the processor's call signature.
"""
import inspect
import math
import warnings

import torch
import torch.nn.functional as F
from torch.nn import Linear, Module, ModuleList, Dropout


class AttnProcessor:
    def __call__(self, attn, hidden_states, encoder_hidden_states=None, attention_mask=None, scale=1.0):
        batch, seq_len, _ = hidden_states.shape
        context = hidden_states if encoder_hidden_states is None else encoder_hidden_states
        query = attn.head_to_batch_dim(attn.to_q(hidden_states))
        key = attn.head_to_batch_dim(attn.to_k(context))
        value = attn.head_to_batch_dim(attn.to_v(context))
        scores = torch.baddbmm(
            torch.zeros(query.shape[0], query.shape[1], key.shape[1], dtype=query.dtype),
            query, key.transpose(-1, -2), beta=0, alpha=attn.scale,
        )
        if attention_mask is not None:
            scores = scores + attention_mask.repeat_interleave(attn.heads, dim=0)
        probs = scores.softmax(dim=-1).to(value.dtype)
        out = attn.batch_to_head_dim(torch.bmm(probs, value))
        return attn.to_out[1](attn.to_out[0](out)) * scale


class AttnProcessor2_0:
    def __call__(self, attn, hidden_states, encoder_hidden_states=None, attention_mask=None):
        batch = hidden_states.shape[0]
        context = hidden_states if encoder_hidden_states is None else encoder_hidden_states
        q, k, v = attn.to_q(hidden_states), attn.to_k(context), attn.to_v(context)
        head_dim = q.shape[-1] // attn.heads
        q, k, v = (t.view(batch, -1, attn.heads, head_dim).transpose(1, 2) for t in (q, k, v))
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=attention_mask, scale=attn.scale)
        out = out.transpose(1, 2).reshape(batch, -1, attn.heads * head_dim)
        return attn.to_out[1](attn.to_out[0](out))


class Attention(Module):
    def __init__(self, query_dim, cross_attention_dim=None, heads=2, dim_head=8, processor=None):
        super().__init__()
        inner_dim = heads * dim_head
        cross_attention_dim = cross_attention_dim or query_dim
        self.heads = heads
        self.scale = 1.0 / math.sqrt(dim_head)
        self.to_q = Linear(query_dim, inner_dim, bias=False)
        self.to_k = Linear(cross_attention_dim, inner_dim, bias=False)
        self.to_v = Linear(cross_attention_dim, inner_dim, bias=False)
        self.to_out = ModuleList([Linear(inner_dim, query_dim), Dropout(0.0)])
        self.set_processor(processor if processor is not None else AttnProcessor())

    def set_processor(self, processor):
        self.processor = processor

    def head_to_batch_dim(self, tensor):
        batch, seq_len, dim = tensor.shape
        tensor = tensor.reshape(batch, seq_len, self.heads, dim // self.heads)
        return tensor.permute(0, 2, 1, 3).reshape(batch * self.heads, seq_len, dim // self.heads)

    def batch_to_head_dim(self, tensor):
        batch_heads, seq_len, dim = tensor.shape
        tensor = tensor.reshape(batch_heads // self.heads, self.heads, seq_len, dim)
        return tensor.permute(0, 2, 1, 3).reshape(batch_heads // self.heads, seq_len, dim * self.heads)

    def forward(self, hidden_states, encoder_hidden_states=None, attention_mask=None, **cross_attention_kwargs):
        attn_parameters = set(inspect.signature(self.processor.__call__).parameters.keys())
        unused_kwargs = [k for k in cross_attention_kwargs if k not in attn_parameters]
        if len(unused_kwargs) > 0:
            warnings.warn(f"cross_attention_kwargs {unused_kwargs} are not expected by "
                          f"{self.processor.__class__.__name__} and will be ignored.")
        kwargs = {k: w for k, w in cross_attention_kwargs.items() if k in attn_parameters}
        return self.processor(self, hidden_states, encoder_hidden_states, attention_mask, **kwargs)


class CrossAttnBlock(Module):
    def __init__(self, dim=16, context_dim=12, processor_cls=AttnProcessor):
        super().__init__()
        self.attn1 = Attention(dim, processor=processor_cls())
        self.attn2 = Attention(dim, cross_attention_dim=context_dim, processor=processor_cls())

    def forward(self, x, context):
        x = x + self.attn1(x)
        return x + self.attn2(x, encoder_hidden_states=context)


CASES = [
    ("CrossAttnBlock", CrossAttnBlock, lambda: (torch.randn(2, 6, 16), torch.randn(2, 4, 12))),
    ("CrossAttnBlock-sdpa", lambda: CrossAttnBlock(processor_cls=AttnProcessor2_0),
     lambda: (torch.randn(2, 6, 16), torch.randn(2, 4, 12))),
]
