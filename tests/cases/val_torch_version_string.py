"""torch.__version__ is a string (issue 34, mechanism 10): dynamo reads it, and torch.version's
strings, as constants, so parsing it in forward traces. It was taken for a torch function whose
result is a tensor, and `int(...)` of it for a tensor converted to a number (a false alarm).
Near miss: the same `int(...)` of a tensor's sum still breaks."""
import torch
import torch.nn as nn
from torch import __version__ as torch_version


class MajorVersionScale(nn.Module):
    def forward(self, x):
        major = int(torch.__version__.split(".")[0])
        return x * major


class ImportedVersionGate(nn.Module):
    def forward(self, x):
        minor = int(torch_version.split(".")[1])
        if minor >= 0:
            return x * 2
        return x


class CudaVersionGate(nn.Module):
    def forward(self, x):
        if torch.version.cuda is not None and float(torch.version.cuda) >= 11.0:
            return x + 1
        return x - 1


class SumAsNumber(nn.Module):
    def forward(self, x):
        major = int(torch.__version__.split(".")[0])
        return x * int(x.sum()) * major


CASES = [
    ("MajorVersionScale", MajorVersionScale, lambda: (torch.randn(3),)),
    ("ImportedVersionGate", ImportedVersionGate, lambda: (torch.randn(3),)),
    ("CudaVersionGate", CudaVersionGate, lambda: (torch.randn(3),)),
    ("SumAsNumber", SumAsNumber, lambda: (torch.randn(3),)),
]
