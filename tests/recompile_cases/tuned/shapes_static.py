"""dynamic=False: every new shape recompiles, and after 8 compiles the frame runs eagerly;
dynamic=True compiles once."""
import torch
import torch.nn as nn


class TokenMixer(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.mix = nn.Linear(width, width)
        self.norm = nn.LayerNorm(width)

    def forward(self, tokens):
        return self.norm(tokens + self.mix(tokens))


def static_three_lengths():
    model = torch.compile(TokenMixer(), dynamic=False)
    for length in (4, 6, 9):
        model(torch.randn(2, length, 16))


def static_ten_lengths():
    model = torch.compile(TokenMixer(), dynamic=False)
    for length in range(3, 13):
        model(torch.randn(2, length, 16))


def dynamic_ten_lengths():
    model = torch.compile(TokenMixer(), dynamic=True)
    for length in range(3, 13):
        model(torch.randn(2, length, 16))


RECOMPILE_CASES = [
    ("static_three_lengths", static_three_lengths),
    ("static_ten_lengths", static_ten_lengths),
    ("dynamic_ten_lengths", dynamic_ten_lengths),
]
