"""Log-mel spectrogram frontend (torchaudio / Whisper style) feeding a small conv classifier.

The mel filterbank is built with numpy at construction time (HTK mel scale, triangular filters,
Slaney-style area normalisation). The STFT uses a periodic Hann window and reflect padding;
log-mels are clamped to `top_db` below the utterance peak and rescaled as in Whisper.
"""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def hz_to_mel(freq):
    return 2595.0 * np.log10(1.0 + freq / 700.0)


def mel_to_hz(mels):
    return 700.0 * (10.0 ** (mels / 2595.0) - 1.0)


def melscale_fbanks(n_freqs, f_min, f_max, n_mels, sample_rate, norm="slaney"):
    all_freqs = np.linspace(0, sample_rate // 2, n_freqs)
    m_pts = np.linspace(hz_to_mel(f_min), hz_to_mel(f_max), n_mels + 2)
    f_pts = mel_to_hz(m_pts)
    f_diff = np.diff(f_pts)
    slopes = f_pts[None, :] - all_freqs[:, None]
    down_slopes = -slopes[:, :-2] / f_diff[:-1]
    up_slopes = slopes[:, 2:] / f_diff[1:]
    fb = np.maximum(0.0, np.minimum(down_slopes, up_slopes))
    if norm == "slaney":
        enorm = 2.0 / (f_pts[2:n_mels + 2] - f_pts[:n_mels])
        fb = fb * enorm[None, :]
    return torch.from_numpy(fb.astype(np.float32))


class LogMelSpectrogram(nn.Module):
    def __init__(self, sample_rate=8000, n_fft=64, hop_length=16, n_mels=12, top_db=80.0):
        super().__init__()
        self.n_fft = n_fft
        self.hop_length = hop_length
        self.top_db = top_db
        self.register_buffer("window", torch.hann_window(n_fft, periodic=True))
        self.register_buffer("mel_fb", melscale_fbanks(n_fft // 2 + 1, 0.0, sample_rate / 2, n_mels, sample_rate))
        self.log_floor = math.log10(1e-10)

    def forward(self, waveform):
        if waveform.dim() == 3:
            waveform = waveform.squeeze(1)
        pad = self.n_fft // 2
        if waveform.shape[-1] <= pad:
            raise ValueError(f"input of {waveform.shape[-1]} samples is too short for n_fft={self.n_fft}")
        stft = torch.stft(waveform, self.n_fft, self.hop_length, window=self.window, center=True,
                          pad_mode="reflect", return_complex=True)
        power = stft[..., :-1].abs() ** 2
        mel = torch.matmul(power.transpose(-1, -2), self.mel_fb).transpose(-1, -2)
        log_spec = torch.clamp(mel, min=1e-10).log10()
        peak = log_spec.amax(dim=(-2, -1), keepdim=True)
        log_spec = torch.maximum(log_spec, peak - self.top_db / 10.0)
        return (log_spec + 4.0) / 4.0


class KeywordSpotter(nn.Module):
    def __init__(self, n_mels=12, channels=16, num_classes=5):
        super().__init__()
        self.frontend = LogMelSpectrogram(n_mels=n_mels)
        self.conv = nn.Sequential(
            nn.Conv1d(n_mels, channels, 3, padding=1), nn.GELU(),
            nn.Conv1d(channels, channels, 3, stride=2, padding=1), nn.GELU(),
        )
        self.head = nn.Linear(channels, num_classes)

    def forward(self, waveform):
        feats = self.frontend(waveform)
        h = self.conv(feats)
        return self.head(F.adaptive_avg_pool1d(h, 1).squeeze(-1))


CASES = [
    ("KeywordSpotter", KeywordSpotter, lambda: (torch.randn(2, 400),)),
    ("KeywordSpotter-channel", KeywordSpotter, lambda: (torch.randn(2, 1, 256),)),
]
