"""Mixers whose `__init__` picks their layer by a constructor argument. `PickedMixer` builds
the linear layer by default and an LSTM only for `mode="lstm"`: built with its defaults it
compiles as one graph, so the path `__init__` would take for another mode is not the module's
attribute. The near miss, `RecurrentMixer`, chooses between two LSTMs: whichever is built, its
call breaks (GB0014)."""
import torch
import torch.nn as nn


class PickedMixer(nn.Module):
    def __init__(self, dim=8, mode="linear"):
        super().__init__()
        self.mixer = nn.Linear(dim, dim)
        if mode == "lstm":
            self.mixer = nn.LSTM(dim, dim, batch_first=True)

    def forward(self, x):
        mixed = self.mixer(x)
        return torch.relu(mixed)


class RecurrentMixer(nn.Module):
    def __init__(self, dim=8, mode="forward"):
        super().__init__()
        if mode == "bidirectional":
            self.rnn = nn.LSTM(dim, dim // 2, batch_first=True, bidirectional=True)
        else:
            self.rnn = nn.LSTM(dim, dim, batch_first=True)

    def forward(self, x):
        mixed, _ = self.rnn(x)
        return torch.relu(mixed)


CASES = [
    ("PickedMixer", PickedMixer, lambda: (torch.randn(2, 5, 8),)),
    ("RecurrentMixer", RecurrentMixer, lambda: (torch.randn(2, 5, 8),)),
]
