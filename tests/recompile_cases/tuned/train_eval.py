"""model.eval() between calls: nothing recompiles when forward never reads `training`; a
dropout layer reads it, so switching recompiles."""
import torch
import torch.nn as nn


class PlainMLP(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.fc1 = nn.Linear(width, width)
        self.fc2 = nn.Linear(width, width)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class DropoutMLP(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.fc1 = nn.Linear(width, width)
        self.drop = nn.Dropout(0.1)
        self.fc2 = nn.Linear(width, width)

    def forward(self, x):
        return self.fc2(self.drop(torch.relu(self.fc1(x))))


def plain_train_eval():
    model = PlainMLP()
    compiled = torch.compile(model)
    x = torch.randn(4, 16)
    compiled(x)
    model.eval()
    compiled(x)


def dropout_train_eval():
    model = DropoutMLP()
    compiled = torch.compile(model)
    x = torch.randn(4, 16)
    compiled(x)
    model.eval()
    compiled(x)


RECOMPILE_CASES = [
    ("plain_train_eval", plain_train_eval),
    ("dropout_train_eval", dropout_train_eval),
]
