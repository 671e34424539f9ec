"""One class per way dynamo runs the rest of a frame, or all of it, eagerly after a break, with
breaks after it that it never reaches (tests/test_todo.py; eager_frames_fixed.py removes the
first break of each on its own line)."""
import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class PrintInLoop(nn.Module):
    def forward(self, x):
        for i in range(3):
            x = x + i
            print("step", i)
        logger.warning("done")
        y = x.sum().item()
        return x * y


class BreakInWith(nn.Module):
    def forward(self, x):
        x = x * 2
        with torch.no_grad():
            print("inside")
            x = x + 1
        print("after")
        return torch.nonzero(x)


class BreakInTry(nn.Module):
    def forward(self, x):
        x = x * 2
        try:
            n = int(x.sum())
        except ValueError:
            n = 0
        print("count", n)
        return x + n


class GeneratorOverTensor(nn.Module):
    def forward(self, x):
        x = x * 2
        flag = any(v > 0 for v in x.sum(-1))
        print("any", flag)
        total = sum(v.item() for v in x.sum(-1))
        logger.warning("total %s", total)
        return x * total


class BreakInProperty(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    @property
    def scale(self):
        print("reading scale")
        return 2.0

    def forward(self, x):
        x = self.fc(x) * self.scale
        x = x + 1
        return x


class EnumerateComprehension(nn.Module):
    def forward(self, x):
        x = x * 2
        keep = [i for i, m in enumerate(x.sum(-1) > 0) if m]
        logger.warning("kept %d", len(keep))
        return x * len(keep)


class RnnThenPrint(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(4, 4, batch_first=True)
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        h = self.fc(x)
        h = self.fc(h)
        out, _ = self.rnn(h)
        print("rnn done")
        return out.sum().item()


def _log_step(x):
    print("step", x.shape)
    return x * 2


class HelperInLoop(nn.Module):
    def forward(self, x):
        for _ in range(2):
            x = _log_step(x)
        logger.warning("after loop")
        return x + 1


class ResumedThenLoop(nn.Module):
    def forward(self, x):
        x = x * 2
        print("start")
        x = x + 1
        for i in range(2):
            x = x * i
            print("in loop", i)
        logger.warning("after loop")
        return x


CASES = [
    ("PrintInLoop", PrintInLoop, lambda: (torch.randn(2, 4),)),
    ("BreakInWith", BreakInWith, lambda: (torch.randn(2, 4),)),
    ("BreakInTry", BreakInTry, lambda: (torch.randn(2, 4),)),
    ("GeneratorOverTensor", GeneratorOverTensor, lambda: (torch.randn(2, 4),)),
    ("EnumerateComprehension", EnumerateComprehension, lambda: (torch.randn(2, 4),)),
    ("BreakInProperty", BreakInProperty, lambda: (torch.randn(2, 4),)),
    ("RnnThenPrint", RnnThenPrint, lambda: (torch.randn(2, 3, 4),)),
    ("HelperInLoop", HelperInLoop, lambda: (torch.randn(2, 4),)),
    ("ResumedThenLoop", ResumedThenLoop, lambda: (torch.randn(2, 4),)),
]
