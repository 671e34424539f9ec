"""A rectified-flow trainer that is not a module (its loss method is named `forward`), holding a
compiled velocity model: the optimizer takes the compiled module's parameters, the sampler
builds per-sample timesteps as `torch.tensor([t] * b)` and reshapes them with
`[b, *([1] * len(z.shape[1:]))]`, tests `shift is not None` on a tensor and collects the steps in a
list. Training then sampling under no_grad recompiles on the grad mode; sampling twice at one
batch size is the near miss (one compile); a second batch size recompiles on the shape."""
import torch
import torch.nn as nn


class Velocity(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.net = nn.Linear(width, width)

    def forward(self, x, t):
        return self.net(x) * t[:, None]


class Flow:
    def __init__(self, model):
        self.model = model

    def forward(self, x):
        b = x.size(0)
        t = torch.rand((b,))
        v = self.model(x, t)
        return ((v - x) ** 2).mean(dim=list(range(1, len(x.shape)))).mean()

    @torch.no_grad()
    def sample(self, z, steps, shift=None):
        b = z.size(0)
        dt = torch.tensor([1.0 / steps] * b).view([b, *([1] * len(z.shape[1:]))])
        images = [z]
        for i in range(steps, 0, -1):
            t = torch.tensor([i / steps] * b)
            if shift is not None:
                z = z + shift
            z = z - dt * self.model(z, t)
            images.append(z)
        return images


def train(flow, optimizer, steps):
    for _ in range(steps):
        loss = flow.forward(torch.randn(4, 8))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_then_sample():
    torch.manual_seed(0)
    model = torch.compile(Velocity())
    flow = Flow(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    train(flow, optimizer, 2)
    model.eval()
    flow.sample(torch.randn(4, 8), 3, shift=torch.zeros(4, 8))


def sample_twice():
    torch.manual_seed(0)
    model = torch.compile(Velocity())
    model.eval()
    flow = Flow(model)
    flow.sample(torch.randn(4, 8), 3)
    flow.sample(torch.randn(4, 8), 2, shift=torch.zeros(4, 8))


def sample_two_batches():
    torch.manual_seed(0)
    model = torch.compile(Velocity())
    flow = Flow(model)
    flow.sample(torch.randn(4, 8), 2)
    flow.sample(torch.randn(6, 8), 2)


RECOMPILE_CASES = [
    ("train_then_sample", train_then_sample),
    ("sample_twice", sample_twice),
    ("sample_two_batches", sample_two_batches),
]
