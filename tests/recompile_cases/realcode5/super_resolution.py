"""PyTorch examples (pytorch/examples at 77f55b9, super_resolution/model.py, main.py and
super_resolve.py; BSD-3-Clause, see licenses/pytorch-examples.LICENSE): the sub-pixel
convolution network (upscale factor 3), the `train` / `test` epochs with Adam and MSE, and
`super_resolve`'s single-image upscaling, on 20 random training crops of 24x24 (inputs 8x8,
batch size 8) and 10 test crops (batch size 4) on CPU, compiled as a user adds torch.compile to
the scripts. Changed from upstream: argparse replaced by a namespace, BSDS300 by random tensors
in a TensorDataset, the checkpoint save and the PIL image conversion removed (super_resolve's
Y channel is a random tensor of the image's size), and the scripts' module-level code written
as the drivers below."""
from __future__ import print_function
from math import log10
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.init as init
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self, upscale_factor):
        super(Net, self).__init__()

        self.relu = nn.ReLU()
        self.conv1 = nn.Conv2d(1, 64, (5, 5), (1, 1), (2, 2))
        self.conv2 = nn.Conv2d(64, 64, (3, 3), (1, 1), (1, 1))
        self.conv3 = nn.Conv2d(64, 32, (3, 3), (1, 1), (1, 1))
        self.conv4 = nn.Conv2d(32, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
        self.pixel_shuffle = nn.PixelShuffle(upscale_factor)

        self._initialize_weights()

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        x = self.relu(self.conv3(x))
        x = self.pixel_shuffle(self.conv4(x))
        return x

    def _initialize_weights(self):
        init.orthogonal_(self.conv1.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv2.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv3.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv4.weight)


def random_crops(count, crop_size, upscale_factor):
    """Stand-in for BSDS300: targets of crop_size and inputs downscaled by upscale_factor."""
    target = torch.rand(count, 1, crop_size, crop_size)
    input = nn.functional.interpolate(target, scale_factor=1 / upscale_factor, mode="area")
    return TensorDataset(input, target)


opt = SimpleNamespace(upscale_factor=3, batchSize=8, testBatchSize=4, nEpochs=2, lr=0.01, seed=123)
device = torch.device("cpu")


def train(epoch, model, optimizer, criterion, training_data_loader):
    epoch_loss = 0
    for iteration, batch in enumerate(training_data_loader, 1):
        input, target = batch[0].to(device), batch[1].to(device)

        optimizer.zero_grad()
        loss = criterion(model(input), target)
        epoch_loss += loss.item()
        loss.backward()
        optimizer.step()

        print("===> Epoch[{}]({}/{}): Loss: {:.4f}".format(epoch, iteration, len(training_data_loader), loss.item()))

    print("===> Epoch {} Complete: Avg. Loss: {:.4f}".format(epoch, epoch_loss / len(training_data_loader)))


def test(model, criterion, testing_data_loader):
    avg_psnr = 0
    with torch.no_grad():
        for batch in testing_data_loader:
            input, target = batch[0].to(device), batch[1].to(device)

            prediction = model(input)
            mse = criterion(prediction, target)
            psnr = 10 * log10(1 / mse.item())
            avg_psnr += psnr
    print("===> Avg. PSNR: {:.4f} dB".format(avg_psnr / len(testing_data_loader)))


def super_resolve(model, width, height):
    y = torch.rand(height, width)
    input = y.view(1, -1, height, width)

    out = model(input)
    out = out.cpu()
    out_img_y = out[0].detach().numpy()
    out_img_y *= 255.0
    out_img_y = out_img_y.clip(0, 255)
    return out_img_y


def build(seed):
    torch.manual_seed(seed)
    train_set = random_crops(20, 24, opt.upscale_factor)
    test_set = random_crops(10, 24, opt.upscale_factor)
    training_data_loader = DataLoader(dataset=train_set, batch_size=opt.batchSize, shuffle=True)
    testing_data_loader = DataLoader(dataset=test_set, batch_size=opt.testBatchSize, shuffle=False)
    model = Net(upscale_factor=opt.upscale_factor).to(device)
    return model, training_data_loader, testing_data_loader


def super_resolution_epochs():
    """main.py: `model = torch.compile(Net(...))`, two epochs of train and test."""
    model, training_data_loader, testing_data_loader = build(opt.seed)
    model = torch.compile(model)
    criterion = nn.MSELoss()
    optimizer = optim.Adam(model.parameters(), lr=opt.lr)

    for epoch in range(1, opt.nEpochs + 1):
        train(epoch, model, optimizer, criterion, training_data_loader)
        test(model, criterion, testing_data_loader)


def super_resolution_train_then_resolve():
    """One epoch of main.py with the model compiled in place (`model.compile()`), then
    super_resolve.py upscaling three images of different sizes with the same model."""
    model, training_data_loader, testing_data_loader = build(opt.seed + 1)
    model.compile()
    criterion = nn.MSELoss()
    optimizer = optim.Adam(model.parameters(), lr=opt.lr)

    train(1, model, optimizer, criterion, training_data_loader)
    test(model, criterion, testing_data_loader)
    for width, height in [(12, 10), (16, 16), (20, 14)]:
        print(super_resolve(model, width, height).shape)


RECOMPILE_CASES = [
    ("super_resolution_epochs", super_resolution_epochs),
    ("super_resolution_train_then_resolve", super_resolution_train_then_resolve),
]
