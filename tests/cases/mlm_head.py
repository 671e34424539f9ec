"""Masked-language-model head that scores only the masked positions (BERT pretraining)."""
import torch
from torch import nn
from torch.nn import functional as F


class MaskedLMHead(nn.Module):
    def __init__(self, dim=16, vocab=50):
        super().__init__()
        self.transform = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.LayerNorm(dim))
        self.decoder = nn.Linear(dim, vocab)

    @staticmethod
    def gather_masked(hidden, labels, ignore_index=-100):
        masked = labels != ignore_index
        return hidden[masked], labels[masked]

    def forward(self, hidden, labels):
        hidden, targets = self.gather_masked(hidden, labels)
        logits = self.decoder(self.transform(hidden))
        return F.cross_entropy(logits, targets)


def _inputs():
    labels = torch.full((2, 6), -100)
    labels[0, 1], labels[1, 4], labels[1, 0] = 7, 3, 11
    return torch.randn(2, 6, 16), labels


CASES = [("MaskedLMHead", MaskedLMHead, _inputs)]
