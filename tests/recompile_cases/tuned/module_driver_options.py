"""Near miss: a script whose compile and evaluation sit behind its options (known: a namespace
of constants, argparse's stand-in). The model is compiled and trained; the evaluation under
no_grad is switched off, so forward compiles once."""
from types import SimpleNamespace

import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc(x)


def evaluate(model, data):
    with torch.no_grad():
        return model(data)


RECOMPILE_CASES = [("<module>", None)]

if __name__ == "__main__":
    args = SimpleNamespace(compile=True, evaluate=False, epochs=3)
    model = Net()
    if args.compile:
        model = torch.compile(model)
    data = torch.randn(8, 16)
    for epoch in range(args.epochs):
        model(data).sum().backward()
        if args.evaluate:
            evaluate(model, data)
