"""Speech encoders that stack two recurrent layers in forward: the first GRU call makes dynamo
give up on the rest of forward, so the second runs eagerly without a break of its own; a helper
called after it is still compiled as a frame of its own and breaks there."""
import torch
import torch.nn as nn


def normalized_energy(frames: torch.Tensor) -> torch.Tensor:
    peak = frames.abs().amax().item()
    return frames / max(peak, 1e-6)


class StackedGRUEncoder(nn.Module):
    def __init__(self, features=8, hidden=16):
        super().__init__()
        self.lower = nn.GRU(features, hidden, batch_first=True)
        self.upper = nn.GRU(hidden, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        lower, _ = self.lower(x)
        upper, _ = self.upper(torch.tanh(lower))
        return self.head(upper[:, -1])


class NormalizedGRUEncoder(nn.Module):
    def __init__(self, features=8, hidden=16):
        super().__init__()
        self.rnn = nn.GRU(features, hidden, batch_first=True)
        self.head = nn.Linear(hidden, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        states, _ = self.rnn(x)
        states = normalized_energy(states)
        return self.head(states[:, -1])


CASES = [
    ("StackedGRUEncoder", StackedGRUEncoder, lambda: (torch.randn(2, 5, 8),)),
    ("NormalizedGRUEncoder", NormalizedGRUEncoder, lambda: (torch.randn(2, 5, 8),)),
]
