"""Near miss: a script training at module level, no `if __name__` guard, that calls the compiled
model in training mode only (the loss computed in the loop): forward compiles once."""
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.drop = nn.Dropout(0.1)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        return self.fc2(self.drop(torch.relu(self.fc1(x))))


RECOMPILE_CASES = [("<module>", None)]

model = torch.compile(Net())
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
data = torch.randn(8, 16)
target = torch.randn(8, 4)
model.train()
for epoch in range(3):
    for step in range(2):
        optimizer.zero_grad()
        loss = ((model(data) - target) ** 2).mean()
        loss.backward()
        optimizer.step()
