"""Sentence-embedding pooling heads on top of a token encoder (sentence-transformers style).

The pooling strategy is chosen by name; several strategies can be concatenated, and each
named task head in a `ModuleDict` reads the pooled vector.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Pooling(nn.Module):
    def __init__(self, word_embedding_dimension, modes=("cls", "mean")):
        super().__init__()
        self.word_embedding_dimension = word_embedding_dimension
        self.modes = tuple(modes)
        for mode in self.modes:
            if not hasattr(self, f"_pool_{mode}"):
                raise ValueError(f"unknown pooling mode {mode!r}")

    def get_sentence_embedding_dimension(self):
        return len(self.modes) * self.word_embedding_dimension

    def _pool_cls(self, token_embeddings, attention_mask):
        return token_embeddings[:, 0]

    def _pool_max(self, token_embeddings, attention_mask):
        fill = torch.finfo(token_embeddings.dtype).min
        masked = token_embeddings.masked_fill(attention_mask.unsqueeze(-1) == 0, fill)
        return masked.max(dim=1).values

    def _pool_mean(self, token_embeddings, attention_mask):
        input_mask_expanded = attention_mask.unsqueeze(-1).expand(token_embeddings.size()).float()
        sum_embeddings = torch.sum(token_embeddings * input_mask_expanded, 1)
        sum_mask = torch.clamp(input_mask_expanded.sum(1), min=1e-9)
        return sum_embeddings / sum_mask

    def _pool_lasttoken(self, token_embeddings, attention_mask):
        seq_lengths = attention_mask.sum(dim=1) - 1
        batch_index = torch.arange(token_embeddings.shape[0], device=token_embeddings.device)
        return token_embeddings[batch_index, seq_lengths]

    def forward(self, token_embeddings, attention_mask):
        pooled = [getattr(self, f"_pool_{mode}")(token_embeddings, attention_mask) for mode in self.modes]
        return torch.cat(pooled, dim=1)


class SentenceEncoder(nn.Module):
    def __init__(self, vocab=30, dim=16, modes=("cls", "mean"), tasks=("nli", "sts")):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        layer = nn.TransformerEncoderLayer(dim, nhead=2, dim_feedforward=32, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=1, enable_nested_tensor=False)
        self.pooling = Pooling(dim, modes)
        out_dim = self.pooling.get_sentence_embedding_dimension()
        self.heads = nn.ModuleDict({name: nn.Linear(out_dim, 3 if name == "nli" else 1) for name in tasks})

    def forward(self, input_ids, attention_mask):
        hidden = self.encoder(self.embed(input_ids))
        sentence = F.normalize(self.pooling(hidden, attention_mask), dim=-1)
        outputs = {name: head(sentence) for name, head in self.heads.items()}
        outputs["embedding"] = sentence
        return outputs


CASES = [
    ("SentenceEncoder-cls-mean", SentenceEncoder,
     lambda: (torch.tensor([[2, 7, 9, 0], [4, 5, 0, 0]]), torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]]))),
    ("SentenceEncoder-max-last", lambda: SentenceEncoder(modes=("max", "lasttoken")).eval(),
     lambda: (torch.tensor([[2, 7, 9, 0], [4, 5, 6, 8]]), torch.tensor([[1, 1, 1, 0], [1, 1, 1, 1]]))),
]
