"""PyTorch examples (pytorch/examples at 77f55b9, mnist/main.py; BSD-3-Clause, see
licenses/pytorch-examples.LICENSE): the MNIST convolutional classifier with its `train` /
`test` epochs (Adadelta, StepLR, dropout, the test pass in eval mode under no_grad), compiled
as a user adds torch.compile to the script. Changed from upstream: argparse replaced by a
namespace with the script's defaults except the epoch count (2 instead of 14); MNIST (60000 /
10000 images, batch sizes 64 / 1000) replaced by random 1x28x28 images in a TensorDataset of
200 training and 100 test images with the same batch sizes (so the last training batch has 8
images, as MNIST's 60000 leave a last batch of 32, and the test set is one batch of 100);
torchvision's transforms dropped (the images are already tensors); `use_accel` fixed to False
(the accelerator branch kept, never taken); the checkpoint save removed; `main` written as the
drivers below."""
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import TensorDataset


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
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


def test(model, device, test_loader):
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

    test_loss /= len(test_loader.dataset)

    print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
        test_loss, correct, len(test_loader.dataset),
        100. * correct / len(test_loader.dataset)))


def fake_mnist(count):
    """Stand-in for datasets.MNIST: normalized 1x28x28 images and labels 0-9."""
    images = (torch.rand(count, 1, 28, 28) - 0.1307) / 0.3081
    labels = torch.randint(0, 10, (count,))
    return TensorDataset(images, labels)


def parse_args(**overrides):
    """The script's argparse defaults (epochs 2 instead of 14)."""
    args = SimpleNamespace(batch_size=64, test_batch_size=1000, epochs=2, lr=1.0, gamma=0.7,
                           no_accel=False, dry_run=False, seed=1, log_interval=10,
                           save_model=False)
    for name, value in overrides.items():
        setattr(args, name, value)
    return args


def loaders(args, use_accel):
    train_kwargs = {'batch_size': args.batch_size}
    test_kwargs = {'batch_size': args.test_batch_size}
    if use_accel:
        accel_kwargs = {'num_workers': 1,
                        'persistent_workers': True,
                        'pin_memory': True,
                        'shuffle': True}
        train_kwargs.update(accel_kwargs)
        test_kwargs.update(accel_kwargs)

    dataset1 = fake_mnist(200)
    dataset2 = fake_mnist(100)
    train_loader = torch.utils.data.DataLoader(dataset1, **train_kwargs)
    test_loader = torch.utils.data.DataLoader(dataset2, **test_kwargs)
    return train_loader, test_loader


def fit(args, model, device, train_loader, test_loader):
    """The end of main(): Adadelta, StepLR and the epochs of train and test."""
    optimizer = optim.Adadelta(model.parameters(), lr=args.lr)

    scheduler = StepLR(optimizer, step_size=1, gamma=args.gamma)
    for epoch in range(1, args.epochs + 1):
        train(args, model, device, train_loader, optimizer, epoch)
        test(model, device, test_loader)
        scheduler.step()


def mnist_compiled_epochs():
    """main(): `model = torch.compile(Net().to(device))`, two epochs of train, test and the
    StepLR step."""
    args = parse_args()
    use_accel = False
    torch.manual_seed(args.seed)
    device = torch.device("cpu")
    train_loader, test_loader = loaders(args, use_accel)

    model = torch.compile(Net().to(device))
    fit(args, model, device, train_loader, test_loader)


def mnist_dry_run_in_place():
    """main() with --dry-run (one training batch per epoch, then the test set) and the model
    compiled in place (`model.compile()`)."""
    args = parse_args(dry_run=True)
    use_accel = False
    torch.manual_seed(args.seed)
    device = torch.device("cpu")
    train_loader, test_loader = loaders(args, use_accel)

    model = Net().to(device)
    model.compile()
    fit(args, model, device, train_loader, test_loader)


RECOMPILE_CASES = [
    ("mnist_compiled_epochs", mnist_compiled_epochs),
    ("mnist_dry_run_in_place", mnist_dry_run_in_place),
]
