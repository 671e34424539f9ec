"""Drivers the exact replay stops in before their first compiled call (a dataset made from word
lists with random.choice, a loss from a table lookup), written the way tutorials write them; the
words have one length, so no shape changes. The coarse replay goes on: training under grad mode
then evaluating under no_grad recompiles the forward on the grad mode whatever the data, also
when each branch of a data test trains (teacher forcing or not). The
near misses: an evaluation behind a test on data that never passes, one after a `break` taken on
data before it, both branches of a data test calling under no_grad, and a helper not followed
that switches grad mode off before calls outside no_grad (nothing is claimed after it)."""
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

WORDS = ["abc", "bcd", "cda", "dab", "bad", "cab"]
LETTERS = "abcd"


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(len(LETTERS), 8)
        self.fc = nn.Linear(8, 3)

    def forward(self, x):
        return F.log_softmax(self.fc(self.embed(x).mean(0)), dim=-1)


def word_tensor(word):
    return torch.tensor([LETTERS.index(letter) for letter in word])


def make_examples(count):
    examples = []
    for _ in range(count):
        word = random.choice(WORDS)
        examples.append((word_tensor(word), torch.tensor(LETTERS.index(word[0]) % 3)))
    return examples


def train(model, examples, optimizer):
    for x, y in examples:
        optimizer.zero_grad()
        loss = F.nll_loss(model(x).unsqueeze(0), y.unsqueeze(0))
        loss.backward()
        optimizer.step()


def evaluate(model, examples):
    correct = 0
    with torch.no_grad():
        for x, y in examples:
            correct += int(model(x).argmax() == y)
    return correct


def freeze_everything():
    torch.set_grad_enabled(False)


def setup(seed):
    random.seed(seed)
    torch.manual_seed(seed)
    model = torch.compile(Tagger())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    return model, optimizer, make_examples(6), make_examples(3)


def train_then_evaluate():
    model, optimizer, train_set, test_set = setup(0)
    for epoch in range(2):
        train(model, train_set, optimizer)
        print(epoch, evaluate(model, test_set))


def evaluation_never_runs():
    model, optimizer, train_set, test_set = setup(1)
    for epoch in range(2):
        train(model, train_set, optimizer)
        if random.random() < 0:
            print(evaluate(model, test_set))


def evaluation_after_a_break_on_data():
    model, optimizer, train_set, test_set = setup(2)
    for epoch in range(2):
        if random.random() < 2:
            break
        print(evaluate(model, test_set))
    train(model, train_set, optimizer)


def both_branches_under_no_grad():
    model, optimizer, train_set, test_set = setup(3)
    with torch.no_grad():
        for x, y in test_set:
            if random.random() < 0.5:
                model(x)
            else:
                model(x.flip(0))


def train_on_either_branch():
    model, optimizer, train_set, test_set = setup(5)
    for x, y in train_set:
        optimizer.zero_grad()
        if random.random() < 0.5:
            out = model(x)
        else:
            out = model(x.flip(0))
        F.nll_loss(out.unsqueeze(0), y.unsqueeze(0)).backward()
        optimizer.step()
    print(evaluate(model, test_set))


def grad_mode_switched_off_by_a_helper():
    model, optimizer, train_set, test_set = setup(4)
    freeze_everything()
    for x, y in train_set:
        model(x)
    print(evaluate(model, test_set))
    torch.set_grad_enabled(True)


RECOMPILE_CASES = [
    ("train_then_evaluate", train_then_evaluate),
    ("evaluation_never_runs", evaluation_never_runs),
    ("evaluation_after_a_break_on_data", evaluation_after_a_break_on_data),
    ("both_branches_under_no_grad", both_branches_under_no_grad),
    ("train_on_either_branch", train_on_either_branch),
    ("grad_mode_switched_off_by_a_helper", grad_mode_switched_off_by_a_helper),
]
