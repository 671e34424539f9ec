"""A compiled cell fed back its own state next to an input whose shape the data decides (the
rows `torch.nonzero` picks): the replay does not follow that input's shape, so the cache's
entries are not known, but the state starts as zeros that do not require grad and comes back
from the cell requiring grad, and dynamo never makes requires_grad symbolic: the second call
recompiles (`tensor 'hidden' requires_grad mismatch`). Under no_grad, or with a state that
requires grad from the start, nothing differs."""
import torch
import torch.nn as nn


class Cell(nn.Module):
    def __init__(self, width: int = 8):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, tokens, hidden):
        hidden = torch.tanh(self.fc(hidden))
        return hidden, tokens.float().mean()


def picked_tokens():
    return torch.nonzero(torch.arange(6) % 2 == 0)


def state_fed_back():
    cell = torch.compile(Cell())
    hidden = torch.zeros(1, 8)
    for step in range(4):
        hidden, score = cell(picked_tokens(), hidden)


def state_fed_back_no_grad():
    cell = torch.compile(Cell())
    hidden = torch.zeros(1, 8)
    with torch.no_grad():
        for step in range(4):
            hidden, score = cell(picked_tokens(), hidden)


def state_requires_grad_from_start():
    cell = torch.compile(Cell())
    hidden = torch.zeros(1, 8, requires_grad=True)
    for step in range(4):
        hidden, score = cell(picked_tokens(), hidden)


RECOMPILE_CASES = [
    ("state_fed_back", state_fed_back),
    ("state_fed_back_no_grad", state_fed_back_no_grad),
    ("state_requires_grad_from_start", state_requires_grad_from_start),
]
