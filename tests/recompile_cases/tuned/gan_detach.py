"""DCGAN's training step (pytorch/examples dcgan/main.py) at small size: module-level sizes read
from a namespace (`nz = int(opt.nz)`), weights set by `net.apply(weights_init)`, strided and
transposed convolutions, a forward whose multi-GPU branch is decided by `self.ngpu > 1`. The
discriminator sees `fake.detach()` (no grad) then `fake` (requires grad): two entries per
batch size, and the smaller last batch adds a dynamic entry for each, its requires_grad still
guarded (4 compiles); the generator compiles twice (the last batch). Near misses: the last
batch dropped (2 and 1 compiles) and a discriminator that only sees detached fakes (2)."""
from types import SimpleNamespace

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

opt = SimpleNamespace(batchSize=16, imageSize=8, nz=4, ngf=4, ndf=4, ngpu=1)
ngpu = int(opt.ngpu)
nz = int(opt.nz)
ngf = int(opt.ngf)
ndf = int(opt.ndf)
nc = 3


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find('Conv') != -1:
        torch.nn.init.normal_(m.weight, 0.0, 0.02)
    elif classname.find('BatchNorm') != -1:
        torch.nn.init.normal_(m.weight, 1.0, 0.02)
        torch.nn.init.zeros_(m.bias)


class Generator(nn.Module):
    def __init__(self, ngpu):
        super().__init__()
        self.ngpu = ngpu
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 2, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, nc, 4, 2, 1, bias=False),
            nn.Tanh())

    def forward(self, input):
        if (input.is_cuda or input.is_xpu) and self.ngpu > 1:
            output = nn.parallel.data_parallel(self.main, input, range(self.ngpu))
        else:
            output = self.main(input)
        return output


class Discriminator(nn.Module):
    def __init__(self, ngpu):
        super().__init__()
        self.ngpu = ngpu
        self.main = nn.Sequential(
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, 1, 4, 1, 0, bias=False),
            nn.Sigmoid())

    def forward(self, input):
        if (input.is_cuda or input.is_xpu) and self.ngpu > 1:
            output = nn.parallel.data_parallel(self.main, input, range(self.ngpu))
        else:
            output = self.main(input)
        return output.view(-1, 1).squeeze(1)


def train(drop_last=False, generator_step=True):
    torch.manual_seed(0)
    dataset = TensorDataset(torch.rand(40, nc, opt.imageSize, opt.imageSize) * 2 - 1, torch.zeros(40))
    dataloader = DataLoader(dataset, batch_size=opt.batchSize, shuffle=True, drop_last=drop_last)
    netG = Generator(ngpu)
    netG.apply(weights_init)
    netG = torch.compile(netG)
    netD = Discriminator(ngpu)
    netD.apply(weights_init)
    netD = torch.compile(netD)
    criterion = nn.BCELoss()
    optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4)
    optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4)
    for epoch in range(2):
        for i, data in enumerate(dataloader, 0):
            netD.zero_grad()
            real = data[0]
            batch_size = real.size(0)
            label = torch.full((batch_size,), 1.0)
            errD_real = criterion(netD(real), label)
            errD_real.backward()
            noise = torch.randn(batch_size, nz, 1, 1)
            fake = netG(noise)
            label.fill_(0.0)
            errD_fake = criterion(netD(fake.detach()), label)
            errD_fake.backward()
            optimizerD.step()
            if generator_step:
                netG.zero_grad()
                label.fill_(1.0)
                errG = criterion(netD(fake), label)
                errG.backward()
                optimizerG.step()
            print('[%d][%d] Loss_D: %.4f' % (epoch, i, (errD_real + errD_fake).item()))


def detached_then_attached():
    train()


def last_batch_dropped():
    train(drop_last=True)


def only_detached():
    train(generator_step=False)


RECOMPILE_CASES = [
    ("detached_then_attached", detached_then_attached),
    ("last_batch_dropped", last_batch_dropped),
    ("only_detached", only_detached),
]
