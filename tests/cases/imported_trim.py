"""CTC acoustic model over padded feature batches."""
import torch
import torch.nn as nn

from .ops import masked_mean, trim_to_longest


class CTCAcousticModel(nn.Module):
    def __init__(self, feat_dim=10, hidden=24, vocab=6):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(feat_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden))
        self.classifier = nn.Linear(hidden, vocab)

    def forward(self, feats, lengths):
        feats = trim_to_longest(feats, lengths)
        h = self.encoder(feats)
        mask = torch.arange(h.shape[1])[None, :] < lengths[:, None]
        utterance = masked_mean(h, mask)
        return self.classifier(h).log_softmax(-1), utterance


CASES = [("CTCAcousticModel", CTCAcousticModel, lambda: (torch.randn(2, 9, 10), torch.tensor([7, 4])))]
