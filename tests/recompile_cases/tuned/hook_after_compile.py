"""A forward hook registered after the model was compiled and called: no recompile (the hook
never runs inside the compiled frame)."""
import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.out = nn.Linear(width, width)

    def forward(self, x):
        return self.out(torch.relu(self.fc(x)))


def hook_added_later():
    model = Encoder()
    compiled = torch.compile(model)
    x = torch.randn(4, 16)
    compiled(x)
    seen = []
    model.fc.register_forward_hook(lambda module, args, output: seen.append(output.shape))
    compiled(x)
    compiled(x)


RECOMPILE_CASES = [
    ("hook_added_later", hook_added_later),
]
