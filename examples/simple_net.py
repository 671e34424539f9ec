"""A two-layer MLP: torch.compile captures its forward as one graph, with no break."""
import torch
import torch.nn as nn


class SimpleNet(nn.Module):
    def __init__(self, d_in: int = 16, d_hidden: int = 32, d_out: int = 4):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_out)

    def forward(self, x):
        x = self.fc1(x)
        x = torch.relu(x)
        return self.fc2(x)
