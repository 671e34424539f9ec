"""A break reached only with grad enabled (`if torch.is_grad_enabled():`), as a model that
checks its activations while training does; the cases are named by the grad mode the call runs
in (`-grad`, `-nograd`: the compiled function calls the model under torch.no_grad())."""
import torch
import torch.nn as nn


class GradCheck(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        h = self.proj(x)
        if torch.is_grad_enabled() and h.abs().max() > 1e4:
            h = h.clamp(-1e4, 1e4)
        return torch.relu(h)


def without_grad():
    model = GradCheck()

    def run(x):
        with torch.no_grad():
            return model(x)

    return run


CASES = [
    ("GradCheck-grad", GradCheck, lambda: (torch.randn(2, 8),)),
    ("GradCheck-nograd", without_grad, lambda: (torch.randn(2, 8),)),
]
