"""The pytorch/examples training loop shape: a TensorDataset read by a DataLoader in batches,
argparse's namespace stood in by a SimpleNamespace, seeds set, a StepLR scheduler stepped per
epoch and log lines formatted (f-strings, str.format, %). 100 rows in batches of 32 end with a
batch of 4: the second shape recompiles once with a dynamic batch, and an evaluation under
no_grad recompiles on the grad mode. The near misses: rows the batch size divides (one compile),
the last batch dropped (one compile), and a forward with an nn.LSTM, which runs eagerly after
the LSTM's break (its compiles differ by release: nothing is claimed for it)."""
import random
from types import SimpleNamespace

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset

args = SimpleNamespace(batch_size=32, epochs=2, lr=0.1, gamma=0.7, seed=1, log_interval=2)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 8)
        self.fc2 = nn.Linear(8, 4)

    def forward(self, x):
        return F.log_softmax(self.fc2(F.relu(self.fc1(x))), dim=1)


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(input_size=16, hidden_size=8, batch_first=True)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        output, hidden = self.rnn(x.reshape(-1, 1, 16))
        return F.log_softmax(self.fc(output[:, -1, :]), dim=1)


def train(model, loader, optimizer, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(loader):
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print('Train Epoch: {} [{}/{}]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(loader.dataset), loss.item()))


def evaluate(model, loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for data, target in loader:
            pred = model(data).argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
    print(f"accuracy {correct}/{len(loader.dataset)}")


def epochs(rows, drop_last=False, net=Net, evaluate_after=True):
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    loader = DataLoader(TensorDataset(torch.rand(rows, 16), torch.randint(0, 4, (rows,))),
                        batch_size=args.batch_size, shuffle=True, drop_last=drop_last)
    model = torch.compile(net())
    optimizer = torch.optim.Adadelta(model.parameters(), lr=args.lr)
    scheduler = StepLR(optimizer, step_size=1, gamma=args.gamma)
    for epoch in range(1, args.epochs + 1):
        train(model, loader, optimizer, epoch)
        if evaluate_after:
            evaluate(model, loader)
        scheduler.step()
        print('epoch %d done' % epoch)


def last_batch_smaller():
    epochs(100, evaluate_after=False)


def last_batch_smaller_then_eval():
    epochs(100)


def batches_even():
    epochs(96, evaluate_after=False)


def last_batch_dropped():
    epochs(100, drop_last=True, evaluate_after=False)


def recurrent_forward():
    epochs(100, net=Recurrent, evaluate_after=False)


RECOMPILE_CASES = [
    ("last_batch_smaller", last_batch_smaller),
    ("last_batch_smaller_then_eval", last_batch_smaller_then_eval),
    ("batches_even", batches_even),
    ("last_batch_dropped", last_batch_dropped),
    ("recurrent_forward", recurrent_forward),
]
