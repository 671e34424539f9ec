"""Longformer-style global attention: the global tokens attend to every token, and the shape of
the scores is asserted against the number of global tokens of the batch."""
import torch
import torch.nn as nn


class GlobalAttention(nn.Module):
    """The count of global tokens is a tensor (`.max()` of a per-row sum): a list of sizes holding
    it is compared in Python."""

    def __init__(self, dim=16, heads=2):
        super().__init__()
        self.heads = heads
        self.head_dim = dim // heads
        self.query = nn.Linear(dim, dim)
        self.key = nn.Linear(dim, dim)

    def forward(self, hidden, is_global):
        batch, seq_len, _ = hidden.shape
        max_global = is_global.long().sum(dim=1).max()
        order = is_global.long().argsort(dim=1, descending=True)[:, :2]
        chosen = torch.gather(hidden, 1, order[..., None].expand(-1, -1, hidden.shape[-1]))
        q = self.query(chosen).view(batch, -1, self.heads, self.head_dim).transpose(1, 2).flatten(0, 1)
        k = self.key(hidden).view(batch, seq_len, self.heads, self.head_dim).transpose(1, 2).flatten(0, 1)
        scores = torch.bmm(q, k.transpose(1, 2))
        assert list(scores.size()) == [batch * self.heads, max_global, seq_len], "wrong global score size"
        return scores.softmax(-1)


class FixedGlobalAttention(GlobalAttention):
    """Near-miss: the global tokens are the first `n_global` positions, a Python int."""

    def __init__(self, dim=16, heads=2, n_global=2):
        super().__init__(dim, heads)
        self.n_global = n_global

    def forward(self, hidden, is_global):
        batch, seq_len, _ = hidden.shape
        chosen = hidden[:, : self.n_global]
        q = self.query(chosen).view(batch, -1, self.heads, self.head_dim).transpose(1, 2).flatten(0, 1)
        k = self.key(hidden).view(batch, seq_len, self.heads, self.head_dim).transpose(1, 2).flatten(0, 1)
        scores = torch.bmm(q, k.transpose(1, 2))
        assert list(scores.size()) == [batch * self.heads, self.n_global, seq_len], "wrong global score size"
        assert list(scores.size()) == [batch * self.heads, chosen.size(1), seq_len]
        return scores.softmax(-1)


def _inputs():
    is_global = torch.zeros(2, 6, dtype=torch.bool)
    is_global[:, :2] = True
    return torch.randn(2, 6, 16), is_global


CASES = [
    ("GlobalAttention", GlobalAttention, _inputs),
    ("FixedGlobalAttention", FixedGlobalAttention, _inputs),
]
