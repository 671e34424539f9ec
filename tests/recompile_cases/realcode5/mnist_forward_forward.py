"""PyTorch examples (pytorch/examples at 77f55b9, mnist_forward_forward/main.py; BSD-3-Clause, see
licenses/pytorch-examples.LICENSE; itself based on Mohammad Pezeshki's pytorch_forward_forward,
MIT): Hinton's forward-forward training, each `Layer` (an nn.Linear with its own Adam) trained
greedily on positive and negative data, then `Net.predict` scoring every label's goodness, on
100 random training and 50 test images with layers 784-64-64 and 20 epochs per layer on CPU,
compiled as a user adds torch.compile to the script. Changed from upstream: argparse's `args`
replaced by a namespace, MNIST by random tensors, and the main block written as the drivers
below."""
from types import SimpleNamespace

import torch
import torch.nn as nn
from torch.optim import Adam

args = SimpleNamespace(epochs=20, lr=0.03, seed=1, train_size=100, threshold=2, test_size=50,
                       log_interval=10)
device = torch.device("cpu")


def get_y_neg(y):
    y_neg = y.clone()
    for idx, y_samp in enumerate(y):
        allowed_indices = list(range(10))
        allowed_indices.remove(y_samp.item())
        y_neg[idx] = torch.tensor(allowed_indices)[
            torch.randint(len(allowed_indices), size=(1,))
        ].item()
    return y_neg.to(device)


def overlay_y_on_x(x, y, classes=10):
    x_ = x.clone()
    x_[:, :classes] *= 0.0
    x_[range(x.shape[0]), y] = x.max()
    return x_


class Net(torch.nn.Module):
    def __init__(self, dims):

        super().__init__()
        self.layers = []
        for d in range(len(dims) - 1):
            self.layers = self.layers + [Layer(dims[d], dims[d + 1]).to(device)]

    def predict(self, x):
        goodness_per_label = []
        for label in range(10):
            h = overlay_y_on_x(x, label)
            goodness = []
            for layer in self.layers:
                h = layer(h)
                goodness = goodness + [h.pow(2).mean(1)]
            goodness_per_label += [sum(goodness).unsqueeze(1)]
        goodness_per_label = torch.cat(goodness_per_label, 1)
        return goodness_per_label.argmax(1)

    def train(self, x_pos, x_neg):
        h_pos, h_neg = x_pos, x_neg
        for i, layer in enumerate(self.layers):
            print("training layer: ", i)
            h_pos, h_neg = layer.train(h_pos, h_neg)


class Layer(nn.Linear):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__(in_features, out_features, bias, device, dtype)
        self.relu = torch.nn.ReLU()
        self.opt = Adam(self.parameters(), lr=args.lr)
        self.threshold = args.threshold
        self.num_epochs = args.epochs

    def forward(self, x):
        x_direction = x / (x.norm(2, 1, keepdim=True) + 1e-4)
        return self.relu(torch.mm(x_direction, self.weight.T) + self.bias.unsqueeze(0))

    def train(self, x_pos, x_neg):
        for i in range(self.num_epochs):
            g_pos = self.forward(x_pos).pow(2).mean(1)
            g_neg = self.forward(x_neg).pow(2).mean(1)
            loss = torch.log1p(
                torch.exp(
                    torch.cat([-g_pos + self.threshold, g_neg - self.threshold])
                )
            ).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            if i % args.log_interval == 0:
                print("Loss: ", loss.item())
        return self.forward(x_pos).detach(), self.forward(x_neg).detach()


def random_mnist(count):
    """Stand-in for a flattened, normalized MNIST batch."""
    return (torch.rand(count, 784) - 0.1307) / 0.3081, torch.randint(0, 10, (count,))


def train_and_test(net):
    x, y = random_mnist(args.train_size)
    x, y = x.to(device), y.to(device)
    x_pos = overlay_y_on_x(x, y)
    y_neg = get_y_neg(y)
    x_neg = overlay_y_on_x(x, y_neg)
    net.train(x_pos, x_neg)
    print("train error:", 1.0 - net.predict(x).eq(y).float().mean().item())
    x_te, y_te = random_mnist(args.test_size)
    x_te, y_te = x_te.to(device), y_te.to(device)
    print("test error:", 1.0 - net.predict(x_te).eq(y_te).float().mean().item())


def forward_forward_layers_compiled():
    """Each layer compiled in place (`layer.compile()`): `Layer.train` calls `self.forward`
    directly, so only `predict`'s `layer(h)` calls go through the compiled module."""
    torch.manual_seed(args.seed)
    net = Net([784, 64, 64])
    for layer in net.layers:
        layer.compile()
    train_and_test(net)


def forward_forward_forward_compiled():
    """Each layer's forward replaced by its compiled bound method, so that training's
    `self.forward(...)` calls are compiled too."""
    torch.manual_seed(args.seed + 1)
    net = Net([784, 64, 64])
    for layer in net.layers:
        layer.forward = torch.compile(layer.forward)
    train_and_test(net)


RECOMPILE_CASES = [
    ("forward_forward_layers_compiled", forward_forward_layers_compiled),
    ("forward_forward_forward_compiled", forward_forward_forward_compiled),
]
