"""Functions compiled by calling torch.compile, not by decorating them."""
import torch


def normalized_step(x):
    peak = x.abs().max().item()
    return x / (peak + 1e-6)


compiled_step = torch.compile(normalized_step)


class EmaUpdater:
    """Compiles its own update method when built, as training loops often do."""

    def __init__(self, decay=0.9):
        self.decay = decay
        self.update = torch.compile(self.update)

    def update(self, average, value):
        if value.isnan().any():
            return average
        return average * self.decay + value * (1 - self.decay)


CASES = [
    ("compiled_step", lambda: compiled_step, lambda: (torch.randn(4, 4),)),
    ("EmaUpdater.update", lambda: EmaUpdater().update, lambda: (torch.zeros(4), torch.randn(4))),
]
