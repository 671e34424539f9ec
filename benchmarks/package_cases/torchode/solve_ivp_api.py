"""torchode's one-call solve_ivp interface."""
import torch
import torch.nn as nn
import torchode as to


class SolveIVP(nn.Module):
    def __init__(self):
        super().__init__()
        self.rate = nn.Parameter(torch.tensor(0.5))

    def f(self, t, y):
        return -self.rate * y

    def forward(self, y0):
        t_eval = torch.linspace(0, 1, 4).expand(y0.shape[0], 4)
        return to.solve_ivp(self.f, y0, t_eval, method="tsit5").ys


CASES = [
    ("SolveIVP", lambda: SolveIVP(), lambda: (torch.randn(2, 3),)),
]
