"""PyTorch examples (pytorch/examples at 77f55b9, vae/main.py; BSD-3-Clause, see
licenses/pytorch-examples.LICENSE): the MNIST variational autoencoder, its loss, `train(epoch)`,
`test(epoch)` and the epoch loop sampling 64 digits from the decoder, on 200 random 28x28 training
images and 64 test images (batch size 32) on CPU. Changed from upstream: argparse replaced by a
namespace, MNIST by random tensors in a TensorDataset, `train`/`test` take the model, optimizer
and loader they read as globals, `save_image` calls dropped, and the main block written as the
drivers below (compiled as a user adds torch.compile to it)."""
from __future__ import print_function
import torch
import torch.utils.data
from torch import nn, optim
from torch.nn import functional as F
from types import SimpleNamespace


args = SimpleNamespace(batch_size=32, epochs=3, seed=1, log_interval=2)
device = torch.device("cpu")


class VAE(nn.Module):
    def __init__(self):
        super(VAE, self).__init__()

        self.fc1 = nn.Linear(784, 400)
        self.fc21 = nn.Linear(400, 20)
        self.fc22 = nn.Linear(400, 20)
        self.fc3 = nn.Linear(20, 400)
        self.fc4 = nn.Linear(400, 784)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5*logvar)
        eps = torch.randn_like(std)
        return mu + eps*std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 784))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


# Reconstruction + KL divergence losses summed over all elements and batch
def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 784), reduction='sum')

    # see Appendix B from VAE paper:
    # Kingma and Welling. Auto-Encoding Variational Bayes. ICLR, 2014
    # https://arxiv.org/abs/1312.6114
    # 0.5 * sum(1 + log(sigma^2) - mu^2 - sigma^2)
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())

    return BCE + KLD


def train(model, optimizer, train_loader, epoch):
    model.train()
    train_loss = 0
    for batch_idx, (data, _) in enumerate(train_loader):
        data = data.to(device)
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                100. * batch_idx / len(train_loader),
                loss.item() / len(data)))

    print('====> Epoch: {} Average loss: {:.4f}'.format(
          epoch, train_loss / len(train_loader.dataset)))


def test(model, test_loader, epoch):
    model.eval()
    test_loss = 0
    with torch.no_grad():
        for i, (data, _) in enumerate(test_loader):
            data = data.to(device)
            recon_batch, mu, logvar = model(data)
            test_loss += loss_function(recon_batch, data, mu, logvar).item()
            if i == 0:
                n = min(data.size(0), 8)
                comparison = torch.cat([data[:n],
                                      recon_batch.view(args.batch_size, 1, 28, 28)[:n]])

    test_loss /= len(test_loader.dataset)
    print('====> Test set loss: {:.4f}'.format(test_loss))


def loaders():
    torch.manual_seed(args.seed)
    train_images = torch.rand(200, 1, 28, 28)
    test_images = torch.rand(64, 1, 28, 28)
    train_loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(train_images, torch.zeros(200, dtype=torch.long)),
        batch_size=args.batch_size, shuffle=True)
    test_loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(test_images, torch.zeros(64, dtype=torch.long)),
        batch_size=args.batch_size, shuffle=False)
    return train_loader, test_loader


def vae_epochs():
    """`model = torch.compile(VAE().to(device))`: three epochs of train, test and 64 samples
    drawn through `model.decode`."""
    train_loader, test_loader = loaders()
    model = torch.compile(VAE().to(device))
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(1, args.epochs + 1):
        train(model, optimizer, train_loader, epoch)
        test(model, test_loader, epoch)
        with torch.no_grad():
            sample = torch.randn(64, 20).to(device)
            sample = model.decode(sample).cpu()


def vae_compiled_decoder_sampling():
    """`model.compile()` in place, and the sampler's decoder compiled on its own
    (`decode = torch.compile(model.decode)`), called after each epoch."""
    train_loader, test_loader = loaders()
    model = VAE().to(device)
    model.compile()
    decode = torch.compile(model.decode)
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(1, args.epochs + 1):
        train(model, optimizer, train_loader, epoch)
        test(model, test_loader, epoch)
        with torch.no_grad():
            sample = torch.randn(64, 20).to(device)
            sample = decode(sample).cpu()


RECOMPILE_CASES = [
    ("vae_epochs", vae_epochs),
    ("vae_compiled_decoder_sampling", vae_compiled_decoder_sampling),
]
