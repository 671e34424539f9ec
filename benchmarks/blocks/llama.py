"""transformers' LlamaModel from a tiny configuration (two decoder layers), as a user builds it."""
import torch
from torch import nn
from transformers.models.llama.configuration_llama import LlamaConfig
from transformers.models.llama.modeling_llama import LlamaModel


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                             num_attention_heads=4, num_key_value_heads=2)
        self.model = LlamaModel(config)

    def forward(self, input_ids):
        return self.model(input_ids).last_hidden_state


def make_inputs():
    return (torch.randint(0, 64, (1, 8)),)
