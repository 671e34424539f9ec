"""BERT-style sequence classifier with HuggingFace `PreTrainedModel` conveniences.

The base class warns when a padded batch is passed without an attention mask, and the model
drops all-padding columns of a batch before encoding to save compute on short batches.
"""
import logging

import torch
import torch.nn as nn

from . import nlp_utils

logger = logging.getLogger(__name__)


class PretrainedConfig:
    def __init__(self, vocab_size=30, hidden_size=16, num_labels=3, pad_token_id=0, trim_padding=True):
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.num_labels = num_labels
        self.pad_token_id = pad_token_id
        self.trim_padding = trim_padding


class PreTrainedModelBase(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config

    def warn_if_padding_and_no_attention_mask(self, input_ids, attention_mask):
        if attention_mask is not None or self.config.pad_token_id is None:
            return
        if self.config.pad_token_id in input_ids[:, [-1, 0]]:
            logger.warning("We strongly recommend passing in an `attention_mask` since your input_ids may be padded.")


class BertForSequenceClassification(PreTrainedModelBase):
    def __init__(self, config=None):
        super().__init__(config or PretrainedConfig())
        cfg = self.config
        self.embeddings = nn.Embedding(cfg.vocab_size, cfg.hidden_size, padding_idx=cfg.pad_token_id)
        layer = nn.TransformerEncoderLayer(cfg.hidden_size, 2, 2 * cfg.hidden_size, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=1, enable_nested_tensor=False)
        self.pooler = nn.Sequential(nn.Linear(cfg.hidden_size, cfg.hidden_size), nn.Tanh())
        self.classifier = nn.Linear(cfg.hidden_size, cfg.num_labels)

    def forward(self, input_ids, attention_mask=None):
        self.warn_if_padding_and_no_attention_mask(input_ids, attention_mask)
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        if self.config.trim_padding:
            input_ids, attention_mask = nlp_utils.trim_batch(input_ids, attention_mask, self.config.pad_token_id)
        hidden = self.encoder(self.embeddings(input_ids), src_key_padding_mask=attention_mask == 0)
        return self.classifier(self.pooler(hidden[:, 0]))


CASES = [
    ("BertForSequenceClassification-masked", BertForSequenceClassification,
     lambda: (torch.tensor([[5, 6, 7, 0, 0], [8, 9, 0, 0, 0]]), torch.tensor([[1, 1, 1, 0, 0], [1, 1, 0, 0, 0]]))),
    ("BertForSequenceClassification-nomask",
     lambda: BertForSequenceClassification(PretrainedConfig(trim_padding=False)),
     lambda: (torch.tensor([[5, 6, 7, 0], [8, 9, 4, 3]]),)),
]
