"""Sparse mixture-of-experts block with token dispatch (Mixtral `MixtralSparseMoeBlock` style).

Tokens are gathered per expert so that each expert only processes the tokens routed to it;
the routing bookkeeping lives in a reusable mixin shared by the decoder's MoE layers.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class TokenDispatchMixin:
    """Routing helpers; expects `self.num_experts`, `self.top_k` and `self.experts`."""

    def route(self, router_logits):
        routing_weights = F.softmax(router_logits, dim=1, dtype=torch.float)
        routing_weights, selected_experts = torch.topk(routing_weights, self.top_k, dim=-1)
        routing_weights = routing_weights / routing_weights.sum(dim=-1, keepdim=True)
        expert_mask = F.one_hot(selected_experts, num_classes=self.num_experts).permute(2, 1, 0)
        return routing_weights, expert_mask

    def dispatch(self, hidden_states, routing_weights, expert_mask):
        final_hidden_states = torch.zeros_like(hidden_states)
        for expert_idx in range(self.num_experts):
            expert_layer = self.experts[expert_idx]
            idx, top_x = torch.where(expert_mask[expert_idx])
            current_state = hidden_states[None, top_x].reshape(-1, hidden_states.shape[-1])
            current_hidden_states = expert_layer(current_state) * routing_weights[top_x, idx, None]
            final_hidden_states.index_add_(0, top_x, current_hidden_states.to(hidden_states.dtype))
        return final_hidden_states


class MixtralBlockSparseTop2MLP(nn.Module):
    def __init__(self, hidden_dim, ffn_dim):
        super().__init__()
        self.w1 = nn.Linear(hidden_dim, ffn_dim, bias=False)
        self.w2 = nn.Linear(ffn_dim, hidden_dim, bias=False)
        self.w3 = nn.Linear(hidden_dim, ffn_dim, bias=False)
        self.act_fn = nn.SiLU()

    def forward(self, hidden_states):
        return self.w2(self.act_fn(self.w1(hidden_states)) * self.w3(hidden_states))


class SparseMoeBlock(nn.Module, TokenDispatchMixin):
    def __init__(self, hidden_dim=16, ffn_dim=32, num_experts=4, top_k=2):
        super().__init__()
        self.num_experts = num_experts
        self.top_k = top_k
        self.gate = nn.Linear(hidden_dim, num_experts, bias=False)
        self.experts = nn.ModuleList([MixtralBlockSparseTop2MLP(hidden_dim, ffn_dim) for _ in range(num_experts)])

    def forward(self, hidden_states):
        batch_size, sequence_length, hidden_dim = hidden_states.shape
        hidden_states = hidden_states.view(-1, hidden_dim)
        router_logits = self.gate(hidden_states)
        routing_weights, expert_mask = self.route(router_logits)
        out = self.dispatch(hidden_states, routing_weights.to(hidden_states.dtype), expert_mask)
        return out.reshape(batch_size, sequence_length, hidden_dim), router_logits


class MoeDecoderLayer(nn.Module):
    def __init__(self, hidden_dim=16):
        super().__init__()
        self.norm = nn.LayerNorm(hidden_dim)
        self.block_sparse_moe = SparseMoeBlock(hidden_dim)

    def forward(self, hidden_states):
        moe_out, router_logits = self.block_sparse_moe(self.norm(hidden_states))
        return hidden_states + moe_out, router_logits


CASES = [("MoeDecoderLayer", MoeDecoderLayer, lambda: (torch.randn(2, 3, 16),))]
