"""Sentence embedding by masked mean pooling (Sentence-BERT)."""
import torch
from torch import nn

from .ops import masked_mean, stable_softmax


class MeanPooler(nn.Module):
    def __init__(self, vocab=50, dim=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(dim, 2, 32, dropout=0.0, batch_first=True), num_layers=1,
            enable_nested_tensor=False)
        self.attn_pool = nn.Linear(dim, 1)

    def forward(self, input_ids, attention_mask):
        h = self.encoder(self.embed(input_ids))
        valid = attention_mask.bool()
        h = h * valid.unsqueeze(-1)
        mean = masked_mean(h, valid)
        weights = stable_softmax(self.attn_pool(h).squeeze(-1).masked_fill(~valid, -1e4), temperature=0.5)
        attended = (weights.unsqueeze(-1) * h).sum(1)
        return torch.cat([mean, attended], dim=-1)


CASES = [("MeanPooler", MeanPooler,
          lambda: (torch.randint(0, 50, (2, 6)), torch.tensor([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]])))]
