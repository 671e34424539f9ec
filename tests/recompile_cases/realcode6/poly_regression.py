"""PyTorch examples (pytorch/examples at 77f55b9, regression/main.py; BSD-3-Clause, see
licenses/pytorch-examples.LICENSE): fitting a degree-4 polynomial with one linear layer on
freshly drawn batches of 32, updating the parameters by hand until the smooth L1 loss is below
1e-3; compiled as a user adds torch.compile to the script. Changed from upstream: the
module-level script written as the drivers below (the target polynomial, drawn unseeded at
import upstream, drawn in `setup` after seeding, so the number of batches is fixed) and the
loop stopped after 2000 batches at the latest (the seeded runs stop well before)."""
from itertools import count

import torch
import torch.nn.functional as F

POLY_DEGREE = 4


def make_features(x):
    """Builds features i.e. a matrix with columns [x, x^2, x^3, x^4]."""
    x = x.unsqueeze(1)
    return torch.cat([x ** i for i in range(1, POLY_DEGREE+1)], 1)


def f(x):
    """Approximated function."""
    return x.mm(W_target) + b_target.item()


def poly_desc(W, b):
    """Creates a string description of a polynomial."""
    result = 'y = '
    for i, w in enumerate(W):
        result += '{:+.2f} x^{} '.format(w, i + 1)
    result += '{:+.2f}'.format(b[0])
    return result


def get_batch(batch_size=32):
    """Builds a batch i.e. (x, f(x)) pair."""
    random = torch.randn(batch_size)
    x = make_features(random)
    y = f(x)
    return x, y


def fit(fc):
    for batch_idx in count(1):
        # Get data
        batch_x, batch_y = get_batch()

        # Reset gradients
        fc.zero_grad()

        # Forward pass
        output = F.smooth_l1_loss(fc(batch_x), batch_y)
        loss = output.item()

        # Backward pass
        output.backward()

        # Apply gradients
        for param in fc.parameters():
            param.data.add_(-0.1 * param.grad)

        # Stop criterion
        if loss < 1e-3 or batch_idx == 2000:
            break

    print('Loss: {:.6f} after {} batches'.format(loss, batch_idx))
    print('==> Learned function:\t' + poly_desc(fc.weight.view(-1), fc.bias))
    print('==> Actual function:\t' + poly_desc(W_target.view(-1), b_target))


def setup(seed):
    global W_target, b_target
    torch.manual_seed(seed)
    W_target = torch.randn(POLY_DEGREE, 1) * 5
    b_target = torch.randn(1) * 5


def regression_fc_compiled():
    """`fc = torch.compile(torch.nn.Linear(W_target.size(0), 1))`."""
    setup(0)
    # Define model
    fc = torch.compile(torch.nn.Linear(W_target.size(0), 1))
    fit(fc)


def regression_features_compiled():
    """The feature builder compiled (`make_features = torch.compile(make_features)`), the
    linear layer left eager."""
    global make_features
    setup(0)
    plain = make_features
    make_features = torch.compile(make_features)
    try:
        fc = torch.nn.Linear(W_target.size(0), 1)
        fit(fc)
    finally:
        make_features = plain


RECOMPILE_CASES = [
    ("regression_fc_compiled", regression_fc_compiled),
    ("regression_features_compiled", regression_features_compiled),
]
