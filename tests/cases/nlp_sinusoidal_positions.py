"""fairseq-style token embedding with padding-aware sinusoidal positions.

Positions start at `padding_idx + 1` and padded tokens keep position `padding_idx`, so left- and
right-padded batches get the same embeddings. The table grows when a longer input arrives.
"""
import math

import numpy as np
import torch
import torch.nn as nn


def make_positions(tensor, padding_idx):
    mask = tensor.ne(padding_idx).int()
    return (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + padding_idx


class SinusoidalPositionalEmbedding(nn.Module):
    def __init__(self, embedding_dim, padding_idx, init_size=8):
        super().__init__()
        self.embedding_dim = embedding_dim
        self.padding_idx = padding_idx if padding_idx is not None else 0
        self.register_buffer("weights", self.get_embedding(init_size, embedding_dim, padding_idx), persistent=False)

    @staticmethod
    def get_embedding(num_embeddings, embedding_dim, padding_idx=None):
        half_dim = embedding_dim // 2
        emb = math.log(10000) / (half_dim - 1)
        emb = torch.exp(torch.arange(half_dim, dtype=torch.float) * -emb)
        emb = torch.arange(num_embeddings, dtype=torch.float).unsqueeze(1) * emb.unsqueeze(0)
        emb = torch.cat([torch.sin(emb), torch.cos(emb)], dim=1).view(num_embeddings, -1)
        if embedding_dim % 2 == 1:
            emb = torch.cat([emb, torch.zeros(num_embeddings, 1)], dim=1)
        if padding_idx is not None:
            emb[padding_idx, :] = 0
        return emb

    def forward(self, input, incremental_state=None, timestep=None):
        bsz, seq_len = input.shape[:2]
        max_pos = self.padding_idx + 1 + seq_len
        if max_pos > self.weights.size(0):
            self.weights = self.get_embedding(max_pos, self.embedding_dim, self.padding_idx).to(self.weights)
        if incremental_state is not None:
            pos = timestep.view(-1)[0] + 1 if timestep is not None else seq_len
            return self.weights[self.padding_idx + pos, :].expand(bsz, 1, -1)
        positions = make_positions(input, self.padding_idx)
        return self.weights.index_select(0, positions.view(-1)).view(bsz, seq_len, -1).detach()


class TransformerEmbedding(nn.Module):
    def __init__(self, vocab_size=20, embed_dim=12, padding_idx=1, dropout=0.1, no_scale_embedding=False):
        super().__init__()
        self.padding_idx = padding_idx
        self.embed_tokens = nn.Embedding(vocab_size, embed_dim, padding_idx=padding_idx)
        self.embed_scale = 1.0 if no_scale_embedding else float(np.sqrt(embed_dim))
        self.embed_positions = SinusoidalPositionalEmbedding(embed_dim, padding_idx)
        self.layernorm_embedding = nn.LayerNorm(embed_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, src_tokens):
        if torch.jit.is_scripting() or src_tokens.dim() != 2:
            raise RuntimeError(f"expected (batch, time) token ids, got shape {tuple(src_tokens.shape)}")
        token_embedding = self.embed_tokens(src_tokens)
        x = self.embed_scale * token_embedding + self.embed_positions(src_tokens)
        x = self.dropout(self.layernorm_embedding(x))
        encoder_padding_mask = src_tokens.eq(self.padding_idx)
        x = x * (1 - encoder_padding_mask.unsqueeze(-1).type_as(x))
        return x.transpose(0, 1), encoder_padding_mask, token_embedding


CASES = [
    ("TransformerEmbedding-short", TransformerEmbedding,
     lambda: (torch.tensor([[1, 1, 5, 6], [4, 7, 9, 2]]),)),
    ("TransformerEmbedding-long", lambda: TransformerEmbedding().eval(),
     lambda: (torch.tensor([[3, 4, 5, 6, 7, 8, 9, 10, 11, 2]]),)),
]
