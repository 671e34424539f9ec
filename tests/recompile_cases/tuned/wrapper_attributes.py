"""A driver reading its model's settings through the compiled wrapper (`model =
torch.compile(model)`, then `model.block_size`, `model.vocab_size`: OptimizedModule passes the
attribute on to the module it wraps) to size the batches it feeds it. Batches of the model's
block size compile once; a driver that crops to half the block size on a second pass feeds a
second shape, which recompiles once with a dynamic length. The near miss: the half crop fed
under the same length as before (one compile)."""
import torch
import torch.nn as nn


class TinyLM(nn.Module):
    def __init__(self, vocab_size=16, block_size=8, width=8):
        super().__init__()
        self.vocab_size = vocab_size
        self.block_size = block_size
        self.wte = nn.Embedding(vocab_size, width)
        self.head = nn.Linear(width, vocab_size)

    def forward(self, idx):
        return self.head(self.wte(idx))


def run(second_length):
    model = torch.compile(TinyLM())
    for _ in range(3):
        model(torch.randint(0, model.vocab_size, (2, model.block_size)))
    model(torch.randint(0, model.vocab_size, (2, second_length(model))))


def full_then_half():
    run(lambda model: model.block_size // 2)


def full_only():
    run(lambda model: model.block_size)


RECOMPILE_CASES = [
    ("full_then_half", full_then_half),
    ("full_only", full_only),
]
