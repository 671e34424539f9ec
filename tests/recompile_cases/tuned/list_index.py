"""An int argument used to index a Python list of modules: the index stays a constant, so
each new value recompiles."""
import torch
import torch.nn as nn


class HeadPicker(nn.Module):
    def __init__(self, width: int = 16, heads: int = 12):
        super().__init__()
        self.heads = nn.ModuleList([nn.Linear(width, width) for _ in range(heads)])

    def forward(self, x, task: int):
        return self.heads[task](x)


def rotating_tasks():
    model = torch.compile(HeadPicker())
    x = torch.randn(4, 16)
    for task in range(4):
        model(x, task)


def one_task():
    model = torch.compile(HeadPicker())
    x = torch.randn(4, 16)
    for _ in range(4):
        model(x, 1)


RECOMPILE_CASES = [
    ("rotating_tasks", rotating_tasks),
    ("one_task", one_task),
]
