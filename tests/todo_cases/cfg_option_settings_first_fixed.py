"""The constructs of cfg_code_scalar_capture_loop.py and cfg_code_ignored_logger_loop.py without
the settings in the code: linted with --staticfx-capture-scalar-outputs or
--staticfx-ignore-logging-functions=logging.Logger.info, recorded with the same settings
(tests/test_oracle_options.py)."""
import logging

import torch
import torch.nn as nn

logger = logging.getLogger(__name__)


class PeakPrinter(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        for _ in range(2):
            peak = self.fc(x).abs().max()
            print("peak", peak)
            x = x * 0.5
        return x


class PeakThenReport(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        for _ in range(2):
            peak = self.fc(x).abs().max()
            x = x / (peak + 1.0)
        print("done")
        return self.fc(x)


class LoggedSteps(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        for step in range(2):
            x = self.fc(x)
            pass
            print("step", step)
        return x


class QuietSteps(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        for step in range(2):
            x = self.fc(x)
            logger.info("step %d", step)
        return x


CASES = [
    ("PeakPrinter", PeakPrinter, lambda: (torch.randn(2, 8),)),
    ("PeakThenReport", PeakThenReport, lambda: (torch.randn(2, 8),)),
    ("LoggedSteps", LoggedSteps, lambda: (torch.randn(2, 8),)),
    ("QuietSteps", QuietSteps, lambda: (torch.randn(2, 8),)),
]
