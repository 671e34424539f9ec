"""A script whose module body feeds batches of three sizes to the compiled model: the second
size recompiles forward once with a dynamic batch dimension, the third matches it."""
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc(x).relu()


RECOMPILE_CASES = [("<module>", None)]

if __name__ == "__main__":
    model = torch.compile(Net())
    with torch.no_grad():
        for batch in (4, 8, 12):
            model(torch.randn(batch, 16))
