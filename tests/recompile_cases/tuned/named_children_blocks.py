"""Regional compilation as torchtitan's apply_compile writes it: each block of a ModuleList
compiled in a loop over `named_children()` (or `children()`), the model itself left eager.
Training then evaluating under no_grad recompiles each block's frame on the grad mode (one
frame's code for both blocks: 2 compiles); training alone is the near miss (1); two batch sizes
recompile once on the shape."""
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.proj = nn.Linear(width, width)

    def forward(self, x):
        return x + torch.relu(self.proj(x))


class Stack(nn.Module):
    def __init__(self, depth=2):
        super().__init__()
        self.blocks = nn.ModuleList([Block() for _ in range(depth)])

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


def compiled_stack():
    torch.manual_seed(0)
    model = Stack()
    for layer_id, block in model.blocks.named_children():
        block.compile(fullgraph=True)
    return model


def train(model, optimizer, steps, batch=4):
    for _ in range(steps):
        loss = model(torch.randn(batch, 8, requires_grad=True)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_then_evaluate():
    model = compiled_stack()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train(model, optimizer, 2)
    with torch.no_grad():
        model(torch.randn(4, 8))


def train_only():
    model = compiled_stack()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train(model, optimizer, 3)


def children_two_batches():
    torch.manual_seed(0)
    model = Stack()
    for block in model.blocks.children():
        block.compile()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train(model, optimizer, 2)
    train(model, optimizer, 2, batch=6)


RECOMPILE_CASES = [
    ("train_then_evaluate", train_then_evaluate),
    ("train_only", train_only),
    ("children_two_batches", children_two_batches),
]
