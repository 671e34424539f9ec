"""Conformer-lite CTC acoustic model with a greedy (best-path) decoder.

Features are subsampled 2x by a strided convolution, encoded, projected to the vocabulary and
collapsed into token sequences by removing repeats and blanks, as in ESPnet / NeMo inference.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from .nlp_utils import lengths_to_padding_mask


class Conv1dSubsampler(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size=3):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, 2 * out_channels, kernel_size, stride=2, padding=kernel_size // 2)

    def get_out_seq_lens_tensor(self, in_seq_lens_tensor):
        return ((in_seq_lens_tensor.float() - 1) / 2 + 1).floor().long()

    def forward(self, src_tokens, src_lengths):
        x = self.conv(src_tokens.transpose(1, 2))
        x = F.glu(x, dim=1)
        return x.transpose(1, 2), self.get_out_seq_lens_tensor(src_lengths)


class GreedyCTCDecoder(nn.Module):
    def __init__(self, blank=0):
        super().__init__()
        self.blank = blank

    @staticmethod
    def collapse(indices, length, blank):
        hyp = torch.unique_consecutive(indices[:length])
        return hyp[hyp != blank].tolist()

    def forward(self, log_probs, lengths):
        best_path = log_probs.argmax(dim=-1)
        return [self.collapse(best_path[b], lengths[b], self.blank) for b in range(best_path.size(0))]


class CTCModel(nn.Module):
    def __init__(self, feat_dim=8, d_model=16, vocab_size=7, decode=True):
        super().__init__()
        self.subsample = Conv1dSubsampler(feat_dim, d_model)
        layer = nn.TransformerEncoderLayer(d_model, 2, 32, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=1, enable_nested_tensor=False)
        self.ctc_proj = nn.Linear(d_model, vocab_size)
        self.decoder = GreedyCTCDecoder(blank=0) if decode else None

    def forward(self, features, feature_lengths):
        x, lengths = self.subsample(features, feature_lengths)
        padding_mask = lengths_to_padding_mask(lengths)
        x = self.encoder(x[:, : padding_mask.size(1)], src_key_padding_mask=padding_mask)
        log_probs = self.ctc_proj(x).log_softmax(dim=-1)
        if self.decoder is None:
            return log_probs, lengths
        return log_probs, self.decoder(log_probs, lengths)


CASES = [
    ("CTCModel-decode", CTCModel, lambda: (torch.randn(2, 12, 8), torch.tensor([12, 9]))),
    ("CTCModel-logits", lambda: CTCModel(decode=False), lambda: (torch.randn(2, 10, 8), torch.tensor([10, 7]))),
]
