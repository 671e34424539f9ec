"""Changing batch sizes under the default dynamic=None: the second shape recompiles once with a
dynamic batch, later ones reuse it; the same shape never recompiles."""
import torch
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self, width: int = 16, classes: int = 4):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(width, width), nn.GELU(), nn.Linear(width, classes))

    def forward(self, x):
        return self.body(x).softmax(dim=-1)


def growing_batches():
    model = torch.compile(Classifier())
    for batch in (2, 3, 5, 8):
        model(torch.randn(batch, 16))


def one_batch_size():
    model = torch.compile(Classifier())
    for _ in range(4):
        model(torch.randn(8, 16))


def marked_dynamic():
    model = torch.compile(Classifier())
    for batch in (2, 3, 5, 8):
        x = torch.randn(batch, 16)
        torch._dynamo.mark_dynamic(x, 0)
        model(x)


RECOMPILE_CASES = [
    ("growing_batches", growing_batches),
    ("one_batch_size", one_batch_size),
    ("marked_dynamic", marked_dynamic),
]
