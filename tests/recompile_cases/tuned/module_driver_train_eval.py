"""A tutorial's script: its module body is the driver (no `main()`). It trains for a few epochs
and evaluates after each under no_grad, through functions reading the module's globals: the
global grad mode is guarded, so the first evaluation recompiles forward once."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def train(epoch):
    model.train()
    for step in range(2):
        optimizer.zero_grad()
        loss = F.mse_loss(model(data), target)
        loss.backward()
        optimizer.step()


def test():
    model.eval()
    with torch.no_grad():
        model(data)


RECOMPILE_CASES = [("<module>", None)]

if __name__ == "__main__":
    model = Net()
    model = torch.compile(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = torch.randn(8, 16)
    target = torch.randn(8, 4)
    for epoch in range(1, 4):
        train(epoch)
        test()
