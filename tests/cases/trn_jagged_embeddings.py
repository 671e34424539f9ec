"""Sequential recommender over jagged user histories (TorchRec ``JaggedTensor`` style).

Each user's history is a variable-length run of item ids stored flat in ``values`` with
per-user ``lengths``. A mean-pooled ``EmbeddingBag`` summarises the whole history and a
target-aware attention pooling (DIN) scores the padded history against the candidate item.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence


class JaggedFeature:
    def __init__(self, values, lengths):
        self.values = values
        self.lengths = lengths

    @property
    def offsets(self):
        return torch.cat([self.lengths.new_zeros(1), self.lengths.cumsum(0)[:-1]])

    @property
    def per_user(self):
        return list(torch.split(self.values, self.lengths.tolist()))

    def to_padded(self, padding_value=0):
        return pad_sequence(self.per_user, batch_first=True, padding_value=padding_value)


class DINRecommender(nn.Module):
    def __init__(self, num_items=20, dim=8):
        super().__init__()
        self.item_emb = nn.Embedding(num_items, dim, padding_idx=0)
        self.history_bag = nn.EmbeddingBag(num_items, dim, mode="mean")
        self.attention = nn.Sequential(nn.Linear(4 * dim, 16), nn.Sigmoid(), nn.Linear(16, 1))
        self.out = nn.Linear(3 * dim, 1)

    def forward(self, values, lengths, candidate):
        history = JaggedFeature(values, lengths)
        summary = self.history_bag(history.values, history.offsets)
        padded = self.item_emb(history.to_padded())
        cand = self.item_emb(candidate).unsqueeze(1).expand_as(padded)
        scores = self.attention(torch.cat([padded, cand, padded - cand, padded * cand], -1)).squeeze(-1)
        steps = torch.arange(padded.size(1), device=padded.device)
        scores = scores.masked_fill(steps[None, :] >= lengths[:, None], float("-inf"))
        interest = (F.softmax(scores, dim=-1).unsqueeze(-1) * padded).sum(1)
        return self.out(torch.cat([summary, interest, cand[:, 0]], -1)).squeeze(-1)


CASES = [
    ("DINRecommender", DINRecommender,
     lambda: (torch.tensor([3, 7, 7, 12, 5, 9, 1, 18, 4]), torch.tensor([3, 2, 4]), torch.tensor([6, 12, 2]))),
]
