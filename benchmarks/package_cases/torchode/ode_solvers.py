"""torchode solves as its README shows, inside model forwards."""
import torch
import torch.nn as nn
import torchode as to


def decay(t, y):
    return -0.5 * y


class DecaySolver(nn.Module):
    """README: Dopri5 with an integral step-size controller, AutoDiffAdjoint."""

    def __init__(self):
        super().__init__()
        term = to.ODETerm(decay)
        step_method = to.Dopri5(term=term)
        controller = to.IntegralController(atol=1e-6, rtol=1e-3, term=term)
        self.solver = to.AutoDiffAdjoint(step_method, controller)

    def forward(self, y0, t_eval):
        sol = self.solver.solve(to.InitialValueProblem(y0=y0, t_eval=t_eval))
        return sol.ys


class NeuralODE(nn.Module):
    """A learned vector field integrated with Tsit5."""

    def __init__(self):
        super().__init__()
        self.field = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 2))
        term = to.ODETerm(self.dynamics)
        self.solver = to.AutoDiffAdjoint(to.Tsit5(term=term), to.PIDController(atol=1e-5, rtol=1e-3, pcoeff=0.2, icoeff=0.5, dcoeff=0.0, term=term))

    def dynamics(self, t, y):
        return self.field(y)

    def forward(self, y0):
        t_eval = torch.linspace(0, 1, 4).expand(y0.shape[0], 4)
        return self.solver.solve(to.InitialValueProblem(y0=y0, t_eval=t_eval)).ys[:, -1]


class FixedStepEuler(nn.Module):
    def __init__(self):
        super().__init__()
        term = to.ODETerm(decay)
        self.solver = to.AutoDiffAdjoint(to.Euler(term=term), to.FixedStepController())

    def forward(self, y0):
        t_eval = torch.linspace(0, 1, 5).expand(y0.shape[0], 5)
        problem = to.InitialValueProblem(y0=y0, t_eval=t_eval)
        return self.solver.solve(problem, dt0=torch.full((y0.shape[0],), 0.1)).ys


CASES = [
    ("DecaySolver", lambda: DecaySolver(),
     lambda: (torch.tensor([[1.2], [5.0]]), torch.stack((torch.linspace(0, 5, 6), torch.linspace(3, 4, 6))))),
    ("NeuralODE", lambda: NeuralODE(), lambda: (torch.randn(3, 2),)),
    ("FixedStepEuler", lambda: FixedStepEuler(), lambda: (torch.randn(2, 3),)),
]
