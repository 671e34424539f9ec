"""nanoGPT's training loop shape: batches of rows cut at random starts (`data[i:i + k]`, i
from torch.randint, always k rows), a cosine learning rate written into the optimizer's
param_groups, and an evaluation under no_grad every few steps, which recompiles on the global
grad mode. The same with batches whose length depends on the data (torch.unique), which the
replay does not follow: whatever their shapes, the first call under no_grad matches no entry and
its grad-mode guard fails first. The near misses: evaluation in the training's grad mode
(nothing reads `training`) and the whole loop under no_grad."""
import math

import torch
import torch.nn as nn

block_size = 4
batch_size = 3


class TinyLM(nn.Module):
    def __init__(self, vocab_size=16, width=8):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, width)
        self.head = nn.Linear(width, vocab_size)

    def forward(self, idx):
        return self.head(self.wte(idx))


def get_batch():
    data = torch.randint(16, (32,))
    ix = torch.randint(len(data) - block_size, (batch_size,))
    return torch.stack([data[i:i + block_size] for i in ix])


def get_unique_tokens():
    return torch.unique(torch.randint(16, (8,))).unsqueeze(0)


def get_lr(it, max_iters):
    return 1e-3 * 0.5 * (1.0 + math.cos(math.pi * it / max_iters))


def train(max_iters, eval_every, eval_no_grad, batches=get_batch):
    model = TinyLM()
    compiled = torch.compile(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    for it in range(max_iters):
        for param_group in optimizer.param_groups:
            param_group['lr'] = get_lr(it, max_iters)
        if eval_every and it % eval_every == 0 and it > 0:
            model.eval()
            if eval_no_grad:
                with torch.no_grad():
                    compiled(batches())
            else:
                compiled(batches())
            model.train()
        compiled(batches()).sum().backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)


def evaluation_under_no_grad():
    torch.manual_seed(0)
    train(5, 2, True)


def evaluation_with_grad():
    torch.manual_seed(0)
    train(5, 2, False)


def unique_tokens_evaluation_under_no_grad():
    torch.manual_seed(0)
    train(5, 2, True, get_unique_tokens)


def unique_tokens_evaluation_with_grad():
    torch.manual_seed(0)
    train(5, 2, False, get_unique_tokens)


def all_under_no_grad():
    torch.manual_seed(0)
    model = TinyLM()
    compiled = torch.compile(model)
    with torch.no_grad():
        for it in range(4):
            compiled(get_batch())


RECOMPILE_CASES = [
    ("evaluation_under_no_grad", evaluation_under_no_grad),
    ("evaluation_with_grad", evaluation_with_grad),
    ("unique_tokens_evaluation_under_no_grad", unique_tokens_evaluation_under_no_grad),
    ("unique_tokens_evaluation_with_grad", unique_tokens_evaluation_with_grad),
    ("all_under_no_grad", all_under_no_grad),
]
