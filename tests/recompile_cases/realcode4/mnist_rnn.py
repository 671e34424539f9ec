"""PyTorch examples (pytorch/examples at 77f55b9, mnist_rnn/main.py; BSD-3-Clause, see
licenses/pytorch-examples.LICENSE): the LSTM classifier of MNIST rows, `train`, `test` and the
epoch loop with Adadelta and StepLR, on 100 random training images (batch size 16) and 40 test
images (batch size 20) on CPU, compiled as a user adds torch.compile to the script. Changed from
upstream: argparse replaced by a namespace, MNIST by random tensors in a TensorDataset, and
`main` written as the driver below."""
from __future__ import print_function

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR
from types import SimpleNamespace


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.rnn = nn.LSTM(input_size=28, hidden_size=64, batch_first=True)
        self.batchnorm = nn.BatchNorm1d(64)
        self.dropout1 = nn.Dropout2d(0.25)
        self.dropout2 = nn.Dropout2d(0.5)
        self.fc1 = nn.Linear(64, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, input):
        # Shape of input is (batch_size,1, 28, 28)
        # converting shape of input to (batch_size, 28, 28)
        # as required by RNN when batch_first is set True
        input = input.reshape(-1, 28, 28)
        output, hidden = self.rnn(input)

        # RNN output shape is (seq_len, batch, input_size)
        # Get last output of RNN
        output = output[:, -1, :]
        output = self.batchnorm(output)
        output = self.dropout1(output)
        output = self.fc1(output)
        output = F.relu(output)
        output = self.dropout2(output)
        output = self.fc2(output)
        output = F.log_softmax(output, dim=1)
        return output


def train(args, model, device, train_loader, optimizer, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                       100. * batch_idx / len(train_loader), loss.item()))
            if args.dry_run:
                break


def test(args, model, device, test_loader):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction='sum').item()  # sum up batch loss
            pred = output.argmax(dim=1, keepdim=True)  # get the index of the max log-probability
            correct += pred.eq(target.view_as(pred)).sum().item()
            if args.dry_run:
                break

    test_loss /= len(test_loader.dataset)

    print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
        test_loss, correct, len(test_loader.dataset),
        100. * correct / len(test_loader.dataset)))


def mnist_rnn_epochs():
    """Three epochs of train and test with `model = torch.compile(Net().to(device))`."""
    args = SimpleNamespace(batch_size=16, test_batch_size=20, epochs=3, lr=0.1, gamma=0.7,
                           dry_run=False, seed=1, log_interval=2, save_model=False)
    device = torch.device("cpu")

    torch.manual_seed(args.seed)

    train_images = (torch.rand(100, 1, 28, 28) - 0.1307) / 0.3081
    test_images = (torch.rand(40, 1, 28, 28) - 0.1307) / 0.3081
    train_loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(train_images, torch.randint(0, 10, (100,))),
        batch_size=args.batch_size, shuffle=True)
    test_loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(test_images, torch.randint(0, 10, (40,))),
        batch_size=args.test_batch_size, shuffle=True)

    model = torch.compile(Net().to(device))
    optimizer = optim.Adadelta(model.parameters(), lr=args.lr)

    scheduler = StepLR(optimizer, step_size=1, gamma=args.gamma)
    for epoch in range(1, args.epochs + 1):
        train(args, model, device, train_loader, optimizer, epoch)
        test(args, model, device, test_loader)
        scheduler.step()


RECOMPILE_CASES = [
    ("mnist_rnn_epochs", mnist_rnn_epochs),
]
