"""A module that tells dynamo at its top level to drop its logger's info calls, then logs in a
loop: the ignored call is no break, so what breaks is what comes after it."""
import logging

import torch
import torch.nn as nn

logger = logging.getLogger(__name__)

torch._dynamo.config.ignore_logger_methods = {logger.info}


class LoggedSteps(nn.Module):
    """`logger.info` is dropped; the print breaks, and inside a loop dynamo gives up on forward."""

    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        for step in range(2):
            x = self.fc(x)
            logger.info("step %d", step)
            print("step", step)
        return x


class QuietSteps(nn.Module):
    """Near miss: only the ignored call in the loop, one graph."""

    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        for step in range(2):
            x = self.fc(x)
            logger.info("step %d", step)
        return x


class WarnedSteps(nn.Module):
    """Near miss: `logger.warning` is not in the set and breaks first."""

    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        for step in range(2):
            x = self.fc(x)
            pass
            print("step", step)
        return x


CASES = [
    ("LoggedSteps", LoggedSteps, lambda: (torch.randn(2, 8),)),
    ("QuietSteps", QuietSteps, lambda: (torch.randn(2, 8),)),
    ("WarnedSteps", WarnedSteps, lambda: (torch.randn(2, 8),)),
]
