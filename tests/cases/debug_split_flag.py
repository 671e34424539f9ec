"""Encoder with optional debugging hooks that are off in normal runs."""
import torch
import torch.nn as nn


@torch.compiler.disable
def dump_activations(name, x):
    torch.save(x.detach(), f"/tmp/{name}.pt")


class DebuggableEncoder(nn.Module):
    def __init__(self, dim=16, depth=2, split_graph=False, dump=False):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(dim, dim) for _ in range(depth)])
        self.split_graph = split_graph
        self.dump = dump

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = torch.relu(layer(x))
            if self.dump:
                dump_activations(f"layer{i}", x)
        if self.split_graph:
            torch._dynamo.graph_break()
        return x


CASES = [("DebuggableEncoder", DebuggableEncoder, lambda: (torch.randn(2, 16),))]
