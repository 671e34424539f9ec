"""Audio-style gates written with numpy on a tensor's array: dynamo 2.13 traces numpy as
tensor operations, so an `if` on np.abs(...).max() of an array made from a tensor is a
branch on tensor data; numpy on the static shape stays Python."""
import numpy as np
import torch
import torch.nn as nn


class ClipGuard(nn.Module):
    def forward(self, wave: torch.Tensor) -> torch.Tensor:
        samples = wave.detach().numpy()
        if np.abs(samples).max() > 1.0:
            wave = wave / wave.abs().max()
        return wave * 0.5


class EnergyGate(nn.Module):
    def forward(self, wave: torch.Tensor) -> torch.Tensor:
        energy = np.mean(np.square(wave.numpy()))
        if energy < 1e-3:
            return torch.zeros_like(wave)
        return wave


class FrameCount(nn.Module):
    def forward(self, wave: torch.Tensor) -> torch.Tensor:
        frames = int(np.ceil(wave.shape[-1] / 4))
        return wave.new_zeros(wave.shape[0], frames) + wave.mean(-1, keepdim=True)


CASES = [
    ("ClipGuard", ClipGuard, lambda: (torch.randn(2, 16) * 2,)),
    ("EnergyGate", EnergyGate, lambda: (torch.randn(2, 16),)),
    ("FrameCount", FrameCount, lambda: (torch.randn(2, 16),)),
]
