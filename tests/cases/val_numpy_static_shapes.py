"""Shape arithmetic done with numpy, as ported signal-processing code does: numpy's elementwise
functions on a Python int from the static shape trace (PadToPowerOfTwo), but dynamo 2.13 does
not fold numpy: np.prod over the shape tuple is an array in the graph, and int() of it needs
its value, as int() of np.max over a tensor's array does."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class PadToPowerOfTwo(nn.Module):
    def forward(self, wave: torch.Tensor) -> torch.Tensor:
        length = wave.shape[-1]
        target = int(2 ** np.ceil(np.log2(length)))
        return F.pad(wave, (0, target - length))


class FlattenHead(nn.Module):
    def __init__(self, features=12, classes=3):
        super().__init__()
        self.fc = nn.Linear(features, classes)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        features = int(np.prod(image.shape[1:]))
        out = image.reshape(image.shape[0], features)
        for _ in range(int(np.sqrt(image.shape[1]))):
            out = out * 0.5
        return self.fc(out)


class PadToDataLength(nn.Module):
    def forward(self, wave: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        longest = int(np.max(lengths.numpy()))
        return F.pad(wave, (0, longest - wave.shape[-1] + 4))


CASES = [
    ("PadToPowerOfTwo", PadToPowerOfTwo, lambda: (torch.randn(2, 12),)),
    ("FlattenHead", FlattenHead, lambda: (torch.randn(2, 4, 3),)),
    ("PadToDataLength", PadToDataLength, lambda: (torch.randn(2, 10), torch.tensor([10, 12]))),
]
