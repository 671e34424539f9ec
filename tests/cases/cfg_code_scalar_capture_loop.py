"""A module that turns scalar capture on at its top level, then reads a peak in a loop: the
`.item()` is traced, so what breaks is what comes after it in the loop."""
import torch
import torch.nn as nn

torch._dynamo.config.capture_scalar_outputs = True


class PeakPrinter(nn.Module):
    """The print breaks (the captured `.item()` does not): inside a loop, dynamo gives up on forward."""

    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        for _ in range(2):
            peak = self.fc(x).abs().max().item()
            print("peak", peak)
            x = x * 0.5
        return x


class PeakBranch(nn.Module):
    """A branch on a tensor after the captured number still breaks."""

    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        for _ in range(2):
            scale = self.fc(x).abs().max().item()
            x = x / (scale + 1.0)
            if x.sum() > 0:
                x = x - 1
        return x


class PeakScaler(nn.Module):
    """Near miss: nothing else in the loop breaks, one graph."""

    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        for _ in range(2):
            peak = self.fc(x).abs().max().item()
            x = x / (peak + 1.0)
        return x


class PeakThenReport(nn.Module):
    """Near miss: the print comes after the loop, where dynamo resumes after it."""

    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        for _ in range(2):
            peak = self.fc(x).abs().max().item()
            x = x / (peak + 1.0)
        print("done")
        return self.fc(x)


CASES = [
    ("PeakPrinter", PeakPrinter, lambda: (torch.randn(2, 8),)),
    ("PeakBranch", PeakBranch, lambda: (torch.randn(2, 8),)),
    ("PeakScaler", PeakScaler, lambda: (torch.randn(2, 8),)),
    ("PeakThenReport", PeakThenReport, lambda: (torch.randn(2, 8),)),
]
