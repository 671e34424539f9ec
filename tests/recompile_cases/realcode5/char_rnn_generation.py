"""PyTorch tutorials (pytorch/tutorials at 4ce8b87, intermediate_source/char_rnn_generation_tutorial.py;
BSD-3-Clause, see licenses/pytorch-tutorials.LICENSE): the conditional character RNN generating
names of a category, `train` stepping the RNN letter by letter with a hand-written SGD update,
and `sample` / `samples` under no_grad, on four categories of made-up names, hidden size 32 on
CPU, compiled as a user adds torch.compile to the tutorial's global `rnn`. Changed from
upstream: the prose comments and plotting removed, the names files replaced by the lists below,
`p.data.add_(-learning_rate, p.grad.data)` written with `alpha=` (the positional form is
deprecated), and the module-level training and sampling written as the drivers below with
n_iters 24."""
import unicodedata
import string
import random
import time
import math

import torch
import torch.nn as nn

all_letters = string.ascii_letters + " .,;'-"
n_letters = len(all_letters) + 1 # Plus EOS marker


# Turn a Unicode string to plain ASCII, thanks to http://stackoverflow.com/a/518232/2809427
def unicodeToAscii(s):
    return ''.join(
        c for c in unicodedata.normalize('NFD', s)
        if unicodedata.category(c) != 'Mn'
        and c in all_letters
    )


NAMES = {
    "Russian": ["Abakumov", "Babkin", "Dorofeev", "Ivanov", "Rusakov", "Sokolov"],
    "German": ["Bauer", "Engel", "Fischer", "Gerber", "Rothstein", "Wagner"],
    "Spanish": ["Alvarez", "Castillo", "Pena", "Salazar", "Santos", "Abascal"],
    "Chinese": ["Chang", "Hou", "Ing", "Chen", "Zhou", "Huang"],
}

category_lines = {}
all_categories = []
for category, lines in NAMES.items():
    all_categories.append(category)
    category_lines[category] = [unicodeToAscii(line) for line in lines]

n_categories = len(all_categories)


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super(RNN, self).__init__()
        self.hidden_size = hidden_size

        self.i2h = nn.Linear(n_categories + input_size + hidden_size, hidden_size)
        self.i2o = nn.Linear(n_categories + input_size + hidden_size, output_size)
        self.o2o = nn.Linear(hidden_size + output_size, output_size)
        self.dropout = nn.Dropout(0.1)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, category, input, hidden):
        input_combined = torch.cat((category, input, hidden), 1)
        hidden = self.i2h(input_combined)
        output = self.i2o(input_combined)
        output_combined = torch.cat((hidden, output), 1)
        output = self.o2o(output_combined)
        output = self.dropout(output)
        output = self.softmax(output)
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, self.hidden_size)


# Random item from a list
def randomChoice(l):
    return l[random.randint(0, len(l) - 1)]


# Get a random category and random line from that category
def randomTrainingPair():
    category = randomChoice(all_categories)
    line = randomChoice(category_lines[category])
    return category, line


# One-hot vector for category
def categoryTensor(category):
    li = all_categories.index(category)
    tensor = torch.zeros(1, n_categories)
    tensor[0][li] = 1
    return tensor


# One-hot matrix of first to last letters (not including EOS) for input
def inputTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li in range(len(line)):
        letter = line[li]
        tensor[li][0][all_letters.find(letter)] = 1
    return tensor


# LongTensor of second letter to end (EOS) for target
def targetTensor(line):
    letter_indexes = [all_letters.find(line[li]) for li in range(1, len(line))]
    letter_indexes.append(n_letters - 1) # EOS
    return torch.LongTensor(letter_indexes)


# Make category, input, and target tensors from a random category, line pair
def randomTrainingExample():
    category, line = randomTrainingPair()
    category_tensor = categoryTensor(category)
    input_line_tensor = inputTensor(line)
    target_line_tensor = targetTensor(line)
    return category_tensor, input_line_tensor, target_line_tensor


criterion = nn.NLLLoss()

learning_rate = 0.0005

rnn = None


def train(category_tensor, input_line_tensor, target_line_tensor):
    target_line_tensor.unsqueeze_(-1)
    hidden = rnn.initHidden()

    rnn.zero_grad()

    loss = 0

    for i in range(input_line_tensor.size(0)):
        output, hidden = rnn(category_tensor, input_line_tensor[i], hidden)
        l = criterion(output, target_line_tensor[i])
        loss += l

    loss.backward()

    for p in rnn.parameters():
        p.data.add_(p.grad.data, alpha=-learning_rate)

    return output, loss.item() / input_line_tensor.size(0)


def timeSince(since):
    now = time.time()
    s = now - since
    m = math.floor(s / 60)
    s -= m * 60
    return '%dm %ds' % (m, s)


max_length = 20


# Sample from a category and starting letter
def sample(category, start_letter='A'):
    with torch.no_grad():  # no need to track history in sampling
        category_tensor = categoryTensor(category)
        input = inputTensor(start_letter)
        hidden = rnn.initHidden()

        output_name = start_letter

        for i in range(max_length):
            output, hidden = rnn(category_tensor, input[0], hidden)
            topv, topi = output.topk(1)
            topi = topi[0][0]
            if topi == n_letters - 1:
                break
            else:
                letter = all_letters[topi]
                output_name += letter
            input = inputTensor(letter)

        return output_name


# Get multiple samples from one category and multiple starting letters
def samples(category, start_letters='ABC'):
    for start_letter in start_letters:
        print(sample(category, start_letter))


def training_loop(n_iters, print_every, plot_every):
    all_losses = []
    total_loss = 0 # Reset every plot_every iters

    start = time.time()

    for iter in range(1, n_iters + 1):
        output, loss = train(*randomTrainingExample())
        total_loss += loss

        if iter % print_every == 0:
            print('%s (%d %d%%) %.4f' % (timeSince(start), iter, iter / n_iters * 100, loss))

        if iter % plot_every == 0:
            all_losses.append(total_loss / plot_every)
            total_loss = 0
    return all_losses


def char_rnn_train_then_sample():
    """`rnn = torch.compile(RNN(n_letters, 32, n_letters))`, 24 training names, then the
    tutorial's samples of four categories under no_grad."""
    global rnn
    random.seed(0)
    torch.manual_seed(0)
    rnn = torch.compile(RNN(n_letters, 32, n_letters))

    training_loop(24, print_every=8, plot_every=4)

    samples('Russian', 'RUS')
    samples('German', 'GER')
    samples('Spanish', 'SPA')
    samples('Chinese', 'CHI')


def char_rnn_sample_only():
    """The compiled RNN only sampled (an untrained model), every call under no_grad."""
    global rnn
    random.seed(1)
    torch.manual_seed(1)
    rnn = torch.compile(RNN(n_letters, 32, n_letters))

    samples('Russian', 'RUS')
    samples('Chinese', 'CHI')


RECOMPILE_CASES = [
    ("char_rnn_train_then_sample", char_rnn_train_then_sample),
    ("char_rnn_sample_only", char_rnn_sample_only),
]
