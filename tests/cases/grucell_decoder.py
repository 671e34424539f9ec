"""Autoregressive decoders unrolled step by step with recurrent cells."""
import torch
import torch.nn as nn


class MinimalRNN(nn.Module):
    """A gated recurrent unit written with linear layers (no cuDNN kernels)."""

    def __init__(self, dim):
        super().__init__()
        self.update = nn.Linear(2 * dim, dim)
        self.candidate = nn.Linear(2 * dim, dim)

    def forward(self, x, h):
        xh = torch.cat([x, h], dim=-1)
        z = torch.sigmoid(self.update(xh))
        return (1 - z) * h + z * torch.tanh(self.candidate(xh))


class GRUCellDecoder(nn.Module):
    def __init__(self, dim=12, steps=4, vocab=9):
        super().__init__()
        self.steps = steps
        self.cell = nn.GRUCell(dim, dim)
        self.lstm_cell = nn.LSTMCell(dim, dim)
        self.rnn = MinimalRNN(dim)
        self.embed = nn.Embedding(vocab, dim)
        self.out = nn.Linear(dim, vocab)

    def forward(self, context):
        h = context
        c = torch.zeros_like(context)
        token = torch.zeros(context.shape[0], dtype=torch.long)
        logits = []
        for _ in range(self.steps):
            x = self.embed(token)
            h = self.cell(x, h)
            h, c = self.lstm_cell(h, (h, c))
            h = self.rnn(x, h)
            step = self.out(h)
            token = step.argmax(-1)
            logits.append(step)
        return torch.stack(logits, 1)


CASES = [("GRUCellDecoder", GRUCellDecoder, lambda: (torch.randn(2, 12),))]
