"""Top-1 mixture-of-experts layer with a capacity factor (Switch Transformer)."""
import torch
from torch import nn as tnn
import torch.nn.functional as F


class SwitchRouter(tnn.Module):
    def __init__(self, dim=32, num_experts=4, capacity_factor=1.25):
        super().__init__()
        self.num_experts = num_experts
        self.capacity_factor = capacity_factor
        self.gate = tnn.Linear(dim, num_experts, bias=False)
        self.experts = tnn.ModuleList(
            [tnn.Sequential(tnn.Linear(dim, 2 * dim), tnn.GELU(), tnn.Linear(2 * dim, dim)) for _ in range(num_experts)]
        )

    def _tokens_per_expert(self, assignment):
        counts = F.one_hot(assignment, self.num_experts).sum(0)
        return counts.max().item()

    def _capacity(self, assignment, num_tokens):
        busiest = self._tokens_per_expert(assignment)
        return min(int(self.capacity_factor * num_tokens / self.num_experts), busiest)

    def forward(self, x):
        tokens = x.reshape(-1, x.shape[-1])
        probs = self.gate(tokens).softmax(-1)
        weight, assignment = probs.max(-1)
        capacity = self._capacity(assignment, tokens.shape[0])
        out = torch.zeros_like(tokens)
        for e, expert in enumerate(self.experts):
            chosen = (assignment == e).float().unsqueeze(-1)
            out = out + chosen * expert(tokens) * weight.unsqueeze(-1)
        self.last_capacity = capacity
        return out.reshape_as(x)


CASES = [("SwitchRouter", SwitchRouter, lambda: (torch.randn(2, 8, 32),))]
