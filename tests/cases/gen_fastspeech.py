"""FastSpeech 2 style acoustic model: phoneme encoder, variance adaptor and mel decoder.

The duration predictor regresses log-durations; at training time the ground-truth durations are
used, at inference the rounded predictions. The length regulator repeats each phoneme state by
its duration and the decoder predicts the mel frames of the expanded sequence.
"""
import torch
import torch.nn as nn

from .gen_blocks import expand_by_duration, sequence_mask


class ConvReLUNorm(nn.Module):
    def __init__(self, dim, kernel_size=3, dropout=0.1):
        super().__init__()
        self.conv = nn.Conv1d(dim, dim, kernel_size, padding=kernel_size // 2)
        self.norm = nn.LayerNorm(dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        x = torch.relu(self.conv(x.transpose(1, 2))).transpose(1, 2)
        return self.dropout(self.norm(x))


class VariancePredictor(nn.Module):
    def __init__(self, dim, n_layers=2):
        super().__init__()
        self.layers = nn.Sequential(*[ConvReLUNorm(dim) for _ in range(n_layers)])
        self.proj = nn.Linear(dim, 1)

    def forward(self, x, mask):
        return self.proj(self.layers(x)).squeeze(-1).masked_fill(~mask, 0.0)


class LengthRegulator(nn.Module):
    def forward(self, x, durations):
        expanded = expand_by_duration(x, durations)
        mel_lengths = durations.sum(-1)
        return expanded, mel_lengths


class FastSpeech2(nn.Module):
    def __init__(self, n_symbols=20, dim=16, n_mels=10):
        super().__init__()
        self.embed = nn.Embedding(n_symbols, dim, padding_idx=0)
        self.encoder = nn.Sequential(ConvReLUNorm(dim), ConvReLUNorm(dim))
        self.duration_predictor = VariancePredictor(dim)
        self.pitch_predictor = VariancePredictor(dim)
        self.pitch_embed = nn.Conv1d(1, dim, 3, padding=1)
        self.length_regulator = LengthRegulator()
        self.decoder = nn.Sequential(ConvReLUNorm(dim), ConvReLUNorm(dim))
        self.mel_linear = nn.Linear(dim, n_mels)

    def forward(self, tokens, token_lengths, durations=None, pace=1.0):
        src_mask = sequence_mask(token_lengths, tokens.shape[1])
        enc = self.encoder(self.embed(tokens)) * src_mask.unsqueeze(-1)
        log_dur = self.duration_predictor(enc, src_mask)
        pitch = self.pitch_predictor(enc, src_mask)
        enc = enc + self.pitch_embed(pitch.unsqueeze(1)).transpose(1, 2)
        if durations is None:
            durations = torch.clamp(torch.round((torch.exp(log_dur) - 1) / pace), min=1).long()
            durations = durations.masked_fill(~src_mask, 0)
        expanded, mel_lengths = self.length_regulator(enc, durations)
        mel_mask = sequence_mask(mel_lengths)
        mel = self.mel_linear(self.decoder(expanded)) * mel_mask.unsqueeze(-1)
        return mel, mel_lengths, log_dur, pitch


CASES = [
    ("FastSpeech2-teacher-forced", FastSpeech2,
     lambda: (torch.tensor([[3, 5, 7, 2], [4, 9, 0, 0]]), torch.tensor([4, 2]),
              torch.tensor([[1, 2, 1, 3], [2, 2, 0, 0]]))),
    ("FastSpeech2-inference", lambda: FastSpeech2().eval(),
     lambda: (torch.tensor([[3, 5, 7, 2], [4, 9, 0, 0]]), torch.tensor([4, 2]))),
]
