"""PyTorch examples (pytorch/examples at 77f55b9, time_sequence_prediction/train.py and
generate_sine_wave.py; BSD-3-Clause, see licenses/pytorch-examples.LICENSE): two LSTM cells
learning sine waves with LBFGS, then predicting `future` steps past the input, shrunk to 8 waves
of 12 points on CPU and compiled with `seq = torch.compile(seq)`. Changed from upstream: the
waves generated with torch instead of numpy and not saved, the plotting dropped, and the main
block written as the drivers below."""
import torch
import torch.nn as nn
import torch.optim as optim


class Sequence(nn.Module):
    def __init__(self):
        super(Sequence, self).__init__()
        self.lstm1 = nn.LSTMCell(1, 51)
        self.lstm2 = nn.LSTMCell(51, 51)
        self.linear = nn.Linear(51, 1)

    def forward(self, input, future = 0):
        outputs = []
        h_t = torch.zeros(input.size(0), 51, dtype=torch.double)
        c_t = torch.zeros(input.size(0), 51, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), 51, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), 51, dtype=torch.double)

        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for i in range(future):# if we should predict the future
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        outputs = torch.cat(outputs, dim=1)
        return outputs


def sine_waves():
    """generate_sine_wave.py: N waves of L points, each shifted by a random offset."""
    torch.manual_seed(2)
    T, L, N = 20, 12, 8
    x = torch.arange(L).view(1, L) + torch.randint(-4 * T, 4 * T, (N, 1))
    return torch.sin(x / 1.0 / T).double()


def lbfgs_train_and_predict():
    """train.py's main: LBFGS steps on waves 3..7, then a no_grad prediction of waves 0..2."""
    torch.manual_seed(0)
    data = sine_waves()
    input = data[3:, :-1]
    target = data[3:, 1:]
    test_input = data[:3, :-1]
    test_target = data[:3, 1:]
    seq = Sequence()
    seq.double()
    seq = torch.compile(seq)
    criterion = nn.MSELoss()
    optimizer = optim.LBFGS(seq.parameters(), lr=0.8, max_iter=3)
    for i in range(2):
        def closure():
            optimizer.zero_grad()
            out = seq(input)
            loss = criterion(out, target)
            loss.backward()
            return loss
        optimizer.step(closure)
        with torch.no_grad():
            future = 6
            pred = seq(test_input, future=future)
            loss = criterion(pred[:, :-future], test_target)


def predict_horizons():
    """The trained model asked for several horizons, as one plots predictions of growing length."""
    torch.manual_seed(0)
    data = sine_waves()
    seq = Sequence()
    seq.double()
    seq = torch.compile(seq)
    with torch.no_grad():
        for future in (2, 4, 6):
            seq(data[:3, :-1], future=future)


RECOMPILE_CASES = [
    ("lbfgs_train_and_predict", lbfgs_train_and_predict),
    ("predict_horizons", predict_horizons),
]
