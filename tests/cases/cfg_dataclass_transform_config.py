"""A decoder stack configured the way transformers configures its models.

`DecoderConfig` is a dataclass without saying so: its base is marked `@dataclass_transform` and
turns every subclass into a keyword-only dataclass in `__init_subclass__`, and each
`__post_init__` hands on to the base's with `super()`. The stack builds one layer per
`config.num_layers` and runs the first `config.num_layers` of them; with `trace_norms` on, each
layer prints its activation norm.
"""
from dataclasses import dataclass
from typing import dataclass_transform

import torch
from torch import nn


@dataclass_transform(kw_only_default=True)
@dataclass
class BaseConfig:
    hidden_size: int = 32
    num_heads: int = 4

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        dataclass(cls, kw_only=True)

    def __post_init__(self):
        self.head_dim = self.hidden_size // self.num_heads


class DecoderConfig(BaseConfig):
    num_layers: int = 6
    trace_norms: bool = False

    def __post_init__(self):
        if self.num_layers < 1:
            raise ValueError("a decoder needs a layer")
        super().__post_init__()


class DecoderLayer(nn.Module):
    def __init__(self, config: DecoderConfig):
        super().__init__()
        self.config = config
        self.attn = nn.Linear(config.hidden_size, config.num_heads * config.head_dim)
        self.mlp = nn.Linear(config.hidden_size, config.hidden_size)

    def forward(self, x):
        x = x + self.attn(x)
        if self.config.trace_norms:
            print("layer norm", x.norm())
        return x + self.mlp(x)


class Decoder(nn.Module):
    def __init__(self, config: DecoderConfig):
        super().__init__()
        self.config = config
        self.layers = nn.ModuleList([DecoderLayer(config) for _ in range(config.num_layers)])

    def forward(self, x):
        for layer in self.layers[: self.config.num_layers]:
            x = layer(x)
        return x


class TracedDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.decoder = Decoder(DecoderConfig(hidden_size=16, num_layers=2, trace_norms=True))

    def forward(self, x):
        return self.decoder(x)


class QuietDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.decoder = Decoder(DecoderConfig(hidden_size=16, num_layers=2))

    def forward(self, x):
        return self.decoder(x)


CASES = [
    ("TracedDecoder", TracedDecoder, lambda: (torch.randn(3, 16),)),
    ("QuietDecoder", QuietDecoder, lambda: (torch.randn(3, 16),)),
]
