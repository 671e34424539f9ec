"""An MLP whose activation depends on the data: dynamo must leave the graph to decide."""
import torch
import torch.nn as nn


class ConditionalNet(nn.Module):
    def __init__(self, d_in: int = 16, d_hidden: int = 32, d_out: int = 4):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_out)

    def forward(self, x):
        x = self.fc1(x)
        if x.sum() > 0:  # SFX101: Python needs the tensor's value to pick a branch
            x = torch.relu(x)
        else:
            x = torch.tanh(x)
        return self.fc2(x)
