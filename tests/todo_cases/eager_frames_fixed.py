"""eager_frames.py with the first break of each class removed on its own line (tests/test_todo.py):
what dynamo reports here is what the to-do list of eager_frames.py announces, with the breaks
reported there that stay."""
import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class PrintInLoop(nn.Module):
    def forward(self, x):
        for i in range(3):
            x = x + i
            pass
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
            n = x.shape[0]
        except ValueError:
            n = 0
        print("count", n)
        return x + n


class GeneratorOverTensor(nn.Module):
    def forward(self, x):
        x = x * 2
        flag = x.shape[0] > 0
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
        keep = [i for i in range(x.shape[0])]
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
        out, _ = h, None
        print("rnn done")
        return out.sum().item()


def _log_step(x):
    pass
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
            pass
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
