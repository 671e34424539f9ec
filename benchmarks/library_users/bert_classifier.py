"""A sentence classifier on two BERT layers of transformers."""
import torch
from torch import nn
from transformers import BertConfig
from transformers.models.bert.modeling_bert import BertLayer


class BertClassifier(nn.Module):
    def __init__(self, num_labels=3):
        super().__init__()
        config = BertConfig(hidden_size=64, num_attention_heads=4, intermediate_size=128)
        self.embed = nn.Embedding(1000, config.hidden_size)
        self.layers = nn.ModuleList([BertLayer(config) for _ in range(2)])
        self.head = nn.Linear(config.hidden_size, num_labels)

    def forward(self, input_ids):
        hidden = self.embed(input_ids)
        for layer in self.layers:
            hidden = layer(hidden)[0]
        return self.head(hidden[:, 0])
