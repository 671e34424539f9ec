"""A script whose module body only calls `main(config)`: the compile is in `build`, a function of
the file taking parameters, so the body is the driver (main, taking parameters, is no driver of
its own). Compiled with dynamic=False, each of the three batch sizes compiles forward again."""
from types import SimpleNamespace

import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.fc = nn.Linear(width, 4)

    def forward(self, x):
        return self.fc(x).relu()


def build(config):
    model = Net(config.width)
    if config.compile:
        model = torch.compile(model, dynamic=False)
    return model


def main(config):
    model = build(config)
    with torch.no_grad():
        for batch in config.batches:
            model(torch.randn(batch, config.width))


RECOMPILE_CASES = [("<module>", None)]

if __name__ == "__main__":
    main(SimpleNamespace(width=16, compile=True, batches=(2, 4, 8)))
