"""Low-rank adaptation (LoRA) of a pretrained self-attention block (peft style).

``inject_lora`` swaps the ``nn.Linear`` projections whose names match ``target_modules`` for
``LoRALinear`` wrappers: the frozen base layer plus a trainable update ``B(A(dropout(x)))``
scaled by ``alpha / r``, with several named adapters of which a subset is active.
"""
import math

import torch
import torch.nn.functional as F
from torch.nn import Dropout, Identity, Linear, Module, ModuleDict
from torch.nn import init


class LoRALinear(Module):
    def __init__(self, base: Linear, r=4, alpha=8, dropout=0.1, adapter_name="default"):
        super().__init__()
        self.base = base
        self.r = {}
        self.scaling = {}
        self.lora_A = ModuleDict()
        self.lora_B = ModuleDict()
        self.lora_dropout = ModuleDict()
        self.active_adapters = []
        self.merged = False
        self.add_adapter(adapter_name, r, alpha, dropout)

    def add_adapter(self, name, r, alpha, dropout):
        self.r[name] = r
        self.scaling[name] = alpha / r
        self.lora_A[name] = Linear(self.base.in_features, r, bias=False)
        self.lora_B[name] = Linear(r, self.base.out_features, bias=False)
        self.lora_dropout[name] = Dropout(dropout) if dropout > 0 else Identity()
        init.kaiming_uniform_(self.lora_A[name].weight, a=math.sqrt(5))
        init.normal_(self.lora_B[name].weight, std=0.02)
        self.active_adapters.append(name)

    def forward(self, x):
        result = self.base(x)
        if self.merged:
            return result
        for name in self.active_adapters:
            if name not in self.lora_A.keys() or self.r[name] == 0:
                continue
            lora_A = self.lora_A[name]
            x_a = self.lora_dropout[name](x.to(lora_A.weight.dtype))
            result = result + self.lora_B[name](lora_A(x_a)) * self.scaling[name]
        return result


class SelfAttention(Module):
    def __init__(self, dim=16, num_heads=4):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = dim // num_heads
        for proj in ("q_proj", "k_proj", "v_proj", "o_proj"):
            setattr(self, proj, Linear(dim, dim))

    def forward(self, x, attn_mask=None):
        bsz, seq_len, _ = x.shape
        q, k, v = (getattr(self, p)(x).view(bsz, seq_len, self.num_heads, self.head_dim).transpose(1, 2)
                   for p in ("q_proj", "k_proj", "v_proj"))
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim)
        if attn_mask is not None:
            scores = scores.masked_fill(~attn_mask[:, None, None, :], torch.finfo(scores.dtype).min)
        out = F.softmax(scores, dim=-1) @ v
        return self.o_proj(out.transpose(1, 2).reshape(bsz, seq_len, -1))


def inject_lora(model, target_modules=("q_proj", "v_proj"), **lora_kwargs):
    for name, module in list(model.named_modules()):
        parent_name, _, child = name.rpartition(".")
        if child in target_modules and isinstance(module, Linear):
            parent = model.get_submodule(parent_name) if parent_name else model
            setattr(parent, child, LoRALinear(module, **lora_kwargs))
    for name, p in model.named_parameters():
        p.requires_grad = "lora_" in name
    return model


def _make_two_adapters():
    model = inject_lora(SelfAttention(), r=4, alpha=8)
    model.q_proj.add_adapter("task_b", r=2, alpha=4, dropout=0.0)
    return model


CASES = [
    ("LoRA-attention", lambda: inject_lora(SelfAttention()), lambda: (torch.randn(2, 5, 16),)),
    ("LoRA-two-adapters", _make_two_adapters,
     lambda: (torch.randn(2, 5, 16), torch.tensor([[True] * 5, [True, True, True, False, False]]))),
]
