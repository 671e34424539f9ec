"""A tiny decoder made of transformers' Llama MLP and RMSNorm."""
import torch
from torch import nn
from transformers import LlamaConfig
from transformers.models.llama.modeling_llama import LlamaMLP, LlamaRMSNorm


class TinyDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        config = LlamaConfig(hidden_size=64, intermediate_size=128, num_attention_heads=4)
        self.norm = LlamaRMSNorm(config.hidden_size, eps=config.rms_norm_eps)
        self.mlp = LlamaMLP(config)
        self.out = nn.Linear(config.hidden_size, 10)

    def forward(self, x):
        x = x + self.mlp(self.norm(x))
        if x.abs().max() > 100:
            x = x / 100
        return self.out(x)
