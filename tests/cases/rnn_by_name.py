"""Recurrent layers chosen by name, as sequence models configure them:
`getattr(nn, rnn_type)(...)` with the type a constructor default or a class constant. Near
misses: the same lookup giving a GRUCell (a cell traces) and an activation chosen by name."""
import torch
import torch.nn as nn


class NamedRNNEncoder(nn.Module):
    def __init__(self, dim=8, rnn_type="LSTM"):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.rnn = getattr(nn, rnn_type)(dim, dim, batch_first=True)

    def forward(self, x):
        h = self.proj(x)
        out, _ = self.rnn(h)
        return out.relu()


class ClassConstantGRU(nn.Module):
    cell = "GRU"

    def __init__(self, dim=8):
        super().__init__()
        self.rnn = getattr(nn, self.cell)(dim, dim, batch_first=True)
        self.head = nn.Linear(dim, dim)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out)


class NamedCellDecoder(nn.Module):
    def __init__(self, dim=8, cell_type="GRUCell"):
        super().__init__()
        self.cell = getattr(nn, cell_type)(dim, dim)

    def forward(self, x):
        h = torch.zeros(x.shape[0], x.shape[2])
        for t in range(x.shape[1]):
            h = self.cell(x[:, t], h)
        return h


class NamedActivation(nn.Module):
    def __init__(self, dim=8, act="GELU"):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.act = getattr(nn, act)()

    def forward(self, x):
        return self.act(self.fc(x))


CASES = [
    ("NamedRNNEncoder", NamedRNNEncoder, lambda: (torch.randn(2, 5, 8),)),
    ("ClassConstantGRU", ClassConstantGRU, lambda: (torch.randn(2, 5, 8),)),
    ("NamedCellDecoder", NamedCellDecoder, lambda: (torch.randn(2, 5, 8),)),
    ("NamedActivation", NamedActivation, lambda: (torch.randn(2, 8),)),
]
