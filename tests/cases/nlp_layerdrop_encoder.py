"""fairseq-style Transformer encoder with LayerDrop (Fan et al., 2019).

`LayerDropModuleList` skips each layer with probability `p` while training; iterating it yields
only the layers that survive this step. At inference every layer is used.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class LayerDropModuleList(nn.ModuleList):
    def __init__(self, p, modules=None):
        super().__init__(modules)
        self.p = p

    def __iter__(self):
        dropout_probs = torch.empty(len(self)).uniform_()
        for i, m in enumerate(super().__iter__()):
            if not self.training or (dropout_probs[i] > self.p):
                yield m


class TransformerEncoderLayer(nn.Module):
    def __init__(self, embed_dim=16, heads=2, ffn_dim=32, dropout=0.1):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(embed_dim, heads, dropout=dropout)
        self.self_attn_layer_norm = nn.LayerNorm(embed_dim)
        self.fc1 = nn.Linear(embed_dim, ffn_dim)
        self.fc2 = nn.Linear(ffn_dim, embed_dim)
        self.final_layer_norm = nn.LayerNorm(embed_dim)
        self.dropout = dropout

    def forward(self, x, encoder_padding_mask=None):
        residual = x
        x, _ = self.self_attn(x, x, x, key_padding_mask=encoder_padding_mask, need_weights=False)
        x = self.self_attn_layer_norm(residual + F.dropout(x, self.dropout, self.training))
        residual = x
        x = self.fc2(F.relu(self.fc1(x)))
        return self.final_layer_norm(residual + F.dropout(x, self.dropout, self.training))


class TransformerEncoder(nn.Module):
    def __init__(self, vocab=20, embed_dim=16, layers=3, encoder_layerdrop=0.2, padding_idx=1):
        super().__init__()
        self.padding_idx = padding_idx
        self.embed_scale = math.sqrt(embed_dim)
        self.embed_tokens = nn.Embedding(vocab, embed_dim, padding_idx=padding_idx)
        if encoder_layerdrop > 0.0:
            self.layers = LayerDropModuleList(p=encoder_layerdrop)
        else:
            self.layers = nn.ModuleList([])
        self.layers.extend([TransformerEncoderLayer(embed_dim) for _ in range(layers)])

    def forward(self, src_tokens):
        encoder_padding_mask = src_tokens.eq(self.padding_idx)
        x = self.embed_scale * self.embed_tokens(src_tokens)
        x = x.transpose(0, 1)
        encoder_states = []
        for layer in self.layers:
            x = layer(x, encoder_padding_mask=encoder_padding_mask)
            encoder_states.append(x)
        return x, encoder_padding_mask, encoder_states


CASES = [
    ("TransformerEncoder-layerdrop-train", TransformerEncoder,
     lambda: (torch.tensor([[4, 5, 6, 1], [7, 8, 9, 10]]),)),
    ("TransformerEncoder-layerdrop-eval", lambda: TransformerEncoder().eval(),
     lambda: (torch.tensor([[4, 5, 6, 1], [7, 8, 9, 10]]),)),
    ("TransformerEncoder-nolayerdrop", lambda: TransformerEncoder(encoder_layerdrop=0.0),
     lambda: (torch.tensor([[4, 5, 1, 1]]),)),
]
