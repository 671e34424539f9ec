"""The project's own compile call flips a flag (`torch.compile(Tracer(debug=True))`): the
compiled module's configuration is that call's, so the break its flag reaches is reported
unlabelled; a class compiled with defaults keeps to them."""
import torch
import torch.nn as nn


class Tracer(nn.Module):
    def __init__(self, dim=8, debug=False):
        super().__init__()
        self.debug = debug
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.proj(x)
        if self.debug:
            print("activation scale", h.abs().mean())
        return h.relu()


class QuietTracer(nn.Module):
    def __init__(self, dim=8, debug=False):
        super().__init__()
        self.debug = debug
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        h = self.proj(x)
        if self.debug:
            print("activation scale", h.abs().mean())
        return h.relu()


traced = torch.compile(Tracer(debug=True))
quiet = QuietTracer(dim=8)
quiet.compile()

CASES = [
    ("Tracer", lambda: traced, lambda: (torch.randn(4, 8),)),
    ("QuietTracer", lambda: quiet, lambda: (torch.randn(4, 8),)),
]
