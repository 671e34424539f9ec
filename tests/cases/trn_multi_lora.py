"""Multi-tenant LoRA serving layer (S-LoRA / peft "mixed batch" style).

One frozen base projection is shared by many low-rank adapters stacked in a single parameter
bank; every row of the batch names its adapter, the rows are grouped per adapter and each
group gets its own ``B @ A`` update, scaled by ``alpha / r``.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiLoRALinear(nn.Module):
    def __init__(self, in_features, out_features, num_adapters=3, r=4, alpha=8):
        super().__init__()
        self.base = nn.Linear(in_features, out_features)
        self.base.requires_grad_(False)
        self.num_adapters = num_adapters
        self.scaling = alpha / r
        self.lora_A = nn.Parameter(torch.randn(num_adapters, r, in_features) * 0.05)
        self.lora_B = nn.Parameter(torch.randn(num_adapters, out_features, r) * 0.05)

    def forward(self, x, adapter_ids):
        out = self.base(x)

        def sub_batches():
            groups = []
            for aid in range(self.num_adapters):
                rows = (adapter_ids == aid).nonzero(as_tuple=True)[0]
                if rows.numel() > 0:
                    groups.append((aid, rows))
            return groups

        delta = torch.zeros_like(out)
        for aid, rows in sub_batches():
            x_sub = x.index_select(0, rows)
            update = F.linear(F.linear(x_sub, self.lora_A[aid]), self.lora_B[aid]) * self.scaling
            delta = delta.index_add(0, rows, update)
        return out + delta


class AdapterMLP(nn.Module):
    def __init__(self, dim=12, hidden=24, num_adapters=3):
        super().__init__()
        self.proj = nn.ModuleDict({
            "up": MultiLoRALinear(dim, hidden, num_adapters),
            "down": MultiLoRALinear(hidden, dim, num_adapters),
        })
        self.norm = nn.LayerNorm(dim)

    def forward(self, x, adapter_ids):
        h = self.norm(x)
        for name in ("up", "down"):
            h = self.proj[name](h, adapter_ids)
            if name == "up":
                h = F.gelu(h)
        return x + h


CASES = [
    ("MultiLoRALinear", lambda: MultiLoRALinear(12, 8), lambda: (torch.randn(5, 12), torch.tensor([0, 2, 2, 0, 1]))),
    ("AdapterMLP", AdapterMLP, lambda: (torch.randn(4, 12), torch.tensor([1, 1, 0, 1]))),
]
