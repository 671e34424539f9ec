"""Objects of the script that are not modules, updated around the compiled calls: pytorch/examples
imagenet's AverageMeter (`losses.update(loss.item(), images.size(0))`, arithmetic on its own
attributes) and a stand-in environment reset with a numpy generator. They change only
themselves, which no guard reads: batches of 8 then an evaluation under no_grad compile twice
(the grad mode). The near miss: the same loop without the evaluation (one compile)."""
import numpy as np
import torch
import torch.nn as nn


class AverageMeter(object):
    """Computes and stores the average and current value"""

    def __init__(self, name, fmt=':f'):
        self.name = name
        self.fmt = fmt
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


class Environment:
    def __init__(self):
        self.rng = np.random.default_rng(0)
        self.state = np.zeros(4)

    def reset(self, seed=None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.state = self.rng.uniform(-0.05, 0.05, size=4)
        return self.state.astype(np.float32), {}


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc(x)


def run(evaluate):
    env = Environment()
    env.reset(seed=1)
    model = torch.compile(Net())
    losses = AverageMeter('Loss', ':.4e')
    for epoch in range(2):
        state, _ = env.reset()
        for _ in range(3):
            images = torch.rand(8, 16)
            loss = model(images).pow(2).mean()
            loss.backward()
            losses.update(loss.item(), images.size(0))
        if evaluate:
            with torch.no_grad():
                model(torch.rand(8, 16))
        print(f'epoch {epoch}: loss {losses.avg:.4f}')


def train_then_evaluate():
    run(evaluate=True)


def train_only():
    run(evaluate=False)


RECOMPILE_CASES = [
    ("train_then_evaluate", train_then_evaluate),
    ("train_only", train_only),
]
