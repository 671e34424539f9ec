"""BART-style sequence classifier: a stack of decoder layers, as many as the config says, then
the hidden state at each sequence's end-of-sentence token goes to the classification head."""
from dataclasses import dataclass

import torch
from torch import nn


@dataclass
class ClassifierConfig:
    d_model: int = 16
    num_layers: int = 2
    num_labels: int = 3
    eos_token_id: int = 2


class DecoderLayer(nn.Module):
    def __init__(self, config, layer_idx=None):
        super().__init__()
        self.layer_idx = layer_idx
        self.attn = nn.MultiheadAttention(config.d_model, 2, batch_first=True)
        self.norm = nn.LayerNorm(config.d_model)
        self.fc = nn.Linear(config.d_model, config.d_model)

    def forward(self, hidden_states, attention_mask=None):
        attended, _ = self.attn(hidden_states, hidden_states, hidden_states, need_weights=False)
        hidden_states = self.norm(hidden_states + attended)
        return hidden_states + torch.relu(self.fc(hidden_states))


class EosClassifier(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embed = nn.Embedding(50, config.d_model)
        self.layers = nn.ModuleList([DecoderLayer(config, layer_idx=i) for i in range(config.num_layers)])
        self.head = nn.Linear(config.d_model, config.num_labels)

    def forward(self, input_ids):
        hidden_states = self.embed(input_ids)
        for layer in self.layers:
            hidden_states = layer(hidden_states)
        return self.head(self.pool(hidden_states, input_ids))

    def pool(self, hidden_states, input_ids):
        eos_mask = input_ids.eq(self.config.eos_token_id)
        selected = hidden_states[eos_mask, :]
        return selected.view(hidden_states.size(0), -1, hidden_states.size(-1))[:, -1, :]


class LastTokenClassifier(EosClassifier):
    """Near-miss: every sequence ends with its end-of-sentence token, so the last position is taken."""

    def pool(self, hidden_states, input_ids):
        return hidden_states[:, -1, :]


def _inputs():
    ids = torch.randint(3, 50, (2, 7))
    ids[:, -1] = 2
    return (ids,)


CASES = [
    ("EosClassifier", lambda: EosClassifier(ClassifierConfig()), _inputs),
    ("LastTokenClassifier", lambda: LastTokenClassifier(ClassifierConfig()), _inputs),
]
