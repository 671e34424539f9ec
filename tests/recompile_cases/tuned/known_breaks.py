"""makemore's training loop: `while True:` ended by `if max_steps >= 0 and step >= max_steps:
break`, steps skipped with `continue`, and an evaluation under no_grad every few steps, which
recompiles on the grad mode; the loop's count is known from the settings. The near misses: a
loop that breaks before the first evaluation (one compile), and a `for` loop over the batches
that breaks after a known number of them before the smaller last batch (one compile)."""
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        return self.fc(x)


def train(max_steps, eval_every):
    model = torch.compile(Net())
    step = 0
    while True:
        step += 1
        if step % 3 == 0:
            continue  # a skipped step: no call
        model(torch.rand(4, 8)).sum().backward()
        if step > 0 and step % eval_every == 0:
            with torch.no_grad():
                model(torch.rand(4, 8))
        if max_steps >= 0 and step >= max_steps:
            break


def evaluates():
    train(max_steps=7, eval_every=5)


def breaks_before_evaluating():
    train(max_steps=4, eval_every=5)


def batches_until_a_limit():
    model = torch.compile(Net())
    batches = [torch.rand(4, 8), torch.rand(4, 8), torch.rand(4, 8), torch.rand(2, 8)]
    for i, batch in enumerate(batches):
        if i == 3:
            break
        model(batch)


RECOMPILE_CASES = [
    ("evaluates", evaluates),
    ("breaks_before_evaluating", breaks_before_evaluating),
    ("batches_until_a_limit", batches_until_a_limit),
]
