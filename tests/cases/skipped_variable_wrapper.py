"""torch.autograd.Variable in forward (issue 34, mechanism 8: a call dynamo skips that looks
harmless): old model code (pointnet.pytorch, waveglow) wraps tensors in `Variable(...)`, which
dynamo does not trace (GB0007, "Attempted to call function marked as skipped"), through the
class or `torch.autograd.Variable`. Near miss: the same tensor without the wrapper."""
import torch
import torch.nn as nn
from torch.autograd import Variable


class IdentityOffset(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(9, 9)

    def forward(self, x):
        x = self.fc(x)
        iden = Variable(torch.eye(3).flatten()).view(1, 9).repeat(x.shape[0], 1)
        return x + iden


class QualifiedVariable(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(9, 9)

    def forward(self, x):
        x = self.fc(x)
        noise = torch.autograd.Variable(0.1 * x)
        return x + noise


class PlainOffset(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(9, 9)

    def forward(self, x):
        x = self.fc(x)
        iden = torch.eye(3).flatten().view(1, 9).repeat(x.shape[0], 1)
        return x + iden


CASES = [
    ("IdentityOffset", IdentityOffset, lambda: (torch.randn(2, 9),)),
    ("QualifiedVariable", QualifiedVariable, lambda: (torch.randn(2, 9),)),
    ("PlainOffset", PlainOffset, lambda: (torch.randn(2, 9),)),
]
