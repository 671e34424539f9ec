"""Listen-attend-spell style listener: conv subsampling followed by a bidirectional LSTM."""
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


class Subsampler(nn.Module):
    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.conv = nn.Conv1d(in_dim, out_dim, kernel_size=3, stride=2, padding=1)

    def forward(self, feats, lengths):
        y = self.conv(feats.transpose(1, 2)).transpose(1, 2)
        return y, (lengths + 1) // 2


class RecurrentListener(nn.Module):
    def __init__(self, in_dim=20, hidden=16):
        super().__init__()
        self.rnn = nn.LSTM(in_dim, hidden, batch_first=True, bidirectional=True)

    def forward(self, x, lengths):
        packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        out, _ = self.rnn(packed)
        out, _ = pad_packed_sequence(out, batch_first=True)
        return out


class Listener(nn.Module):
    def __init__(self, feat_dim=13, dim=20, hidden=16):
        super().__init__()
        self.subsample = Subsampler(feat_dim, dim)
        self.listener = RecurrentListener(dim, hidden)
        self.proj = nn.Linear(2 * hidden, hidden)

    def forward(self, feats, lengths):
        x, lengths = self.subsample(feats, lengths)
        return self.proj(self.listener(x, lengths))


class FrameTagger(nn.Module):
    def __init__(self, feat_dim=13, hidden=16, tags=4):
        super().__init__()
        self.rnn = nn.GRU(feat_dim, hidden, num_layers=2, batch_first=True)
        self.out = nn.Linear(hidden, tags)

    def forward(self, feats):
        h, _ = self.rnn(feats)
        return self.out(h)


CASES = [
    ("Listener", Listener, lambda: (torch.randn(3, 12, 13), torch.tensor([12, 9, 5]))),
    ("FrameTagger", FrameTagger, lambda: (torch.randn(2, 7, 13),)),
]
