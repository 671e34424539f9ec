"""Encoders returning a dataclass model output (a dict of its fields that are not None, as in
transformers' ModelOutput); heads read it by position, as sequence classifiers do."""
from collections import OrderedDict
from dataclasses import dataclass, fields

import torch
import torch.nn as nn


class ModelOutput(OrderedDict):
    """The fields that are not None, in declaration order; `out[i]` indexes them as a tuple."""

    def __post_init__(self):
        for field in fields(self):
            value = getattr(self, field.name)
            if value is not None:
                self[field.name] = value

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        super().__setattr__(key, value)

    def __getitem__(self, key):
        if isinstance(key, str):
            return dict(self.items())[key]
        return self.to_tuple()[key]

    def to_tuple(self):
        return tuple(self[k] for k in self.keys())


@dataclass
class EncoderOutput(ModelOutput):
    last_hidden_state: torch.Tensor = None
    pooler_output: torch.Tensor = None
    attentions: torch.Tensor = None


class Encoder(nn.Module):
    def __init__(self, vocab=32, dim=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, input_ids):
        hidden = self.proj(self.embed(input_ids))
        scores = torch.softmax(hidden @ hidden.transpose(1, 2), dim=-1)
        return EncoderOutput(last_hidden_state=hidden, attentions=scores)


class EosClassifier(nn.Module):
    """Classifies from the hidden state at each <eos> token: a boolean-mask selection."""

    def __init__(self, dim=16, classes=3, eos_token_id=2):
        super().__init__()
        self.eos_token_id = eos_token_id
        self.encoder = Encoder(dim=dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, input_ids):
        outputs = self.encoder(input_ids)
        hidden_states = outputs[0]
        eos_mask = input_ids.eq(self.eos_token_id)
        selected = hidden_states[eos_mask, :]
        return self.head(selected)


class AttentionMaskedPooler(nn.Module):
    """`outputs[1]` skips the pooler output left None: it is the attention scores."""

    def __init__(self, dim=16, eos_token_id=2):
        super().__init__()
        self.eos_token_id = eos_token_id
        self.encoder = Encoder(dim=dim)

    def forward(self, input_ids):
        outputs = self.encoder(input_ids)
        attentions = outputs[1]
        return attentions[input_ids.eq(self.eos_token_id)]


class MeanPoolClassifier(nn.Module):
    """The same output read by position, pooled with the mask as weights: no selection."""

    def __init__(self, dim=16, classes=3, pad_token_id=0):
        super().__init__()
        self.pad_token_id = pad_token_id
        self.encoder = Encoder(dim=dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, input_ids):
        outputs = self.encoder(input_ids)
        hidden_states = outputs[0]
        keep = input_ids.ne(self.pad_token_id).unsqueeze(-1).to(hidden_states.dtype)
        pooled = (hidden_states * keep).sum(1) / keep.sum(1).clamp(min=1.0)
        return self.head(pooled + outputs["attentions"].mean())


def token_ids():
    ids = torch.randint(3, 32, (2, 6))
    ids[:, -1] = 2
    return (ids,)


CASES = [
    ("EosClassifier", EosClassifier, token_ids),
    ("AttentionMaskedPooler", AttentionMaskedPooler, token_ids),
    ("MeanPoolClassifier", MeanPoolClassifier, token_ids),
]
