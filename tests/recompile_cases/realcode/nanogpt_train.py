"""nanoGPT's training loop (karpathy/nanoGPT, train.py) around a one-layer MLP language model:
estimate_loss switches to eval() under no_grad every eval_interval iterations, get_lr changes
the optimizer's learning rate each iteration (outside the compiled model)."""
import math

import torch
import torch.nn as nn
from torch.nn import functional as F


class TinyLM(nn.Module):
    def __init__(self, vocab_size=32, n_embd=16, dropout=0.0):
        super().__init__()
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.fc = nn.Linear(n_embd, n_embd)
        self.drop = nn.Dropout(dropout)
        self.lm_head = nn.Linear(n_embd, vocab_size)

    def forward(self, idx, targets=None):
        x = self.drop(F.gelu(self.fc(self.wte(idx))))
        logits = self.lm_head(x)
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        return logits, loss


learning_rate = 6e-4
warmup_iters = 2
lr_decay_iters = 8
min_lr = 6e-5
eval_interval = 3
eval_iters = 2
batch_size = 4
block_size = 8


def get_batch(split):
    data = torch.randint(32, (64,))
    ix = torch.randint(len(data) - block_size, (batch_size,))
    x = torch.stack([data[i:i + block_size] for i in ix])
    y = torch.stack([data[i + 1:i + 1 + block_size] for i in ix])
    return x, y


def get_lr(it):
    if it < warmup_iters:
        return learning_rate * (it + 1) / (warmup_iters + 1)
    if it > lr_decay_iters:
        return min_lr
    decay_ratio = (it - warmup_iters) / (lr_decay_iters - warmup_iters)
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
    return min_lr + coeff * (learning_rate - min_lr)


def train(model, max_iters, evaluate):
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)
    compiled = torch.compile(model)

    @torch.no_grad()
    def estimate_loss():
        out = {}
        model.eval()
        for split in ['train', 'val']:
            losses = torch.zeros(eval_iters)
            for k in range(eval_iters):
                X, Y = get_batch(split)
                logits, loss = compiled(X, Y)
                losses[k] = loss.item()
            out[split] = losses.mean()
        model.train()
        return out

    X, Y = get_batch('train')
    for iter_num in range(max_iters):
        lr = get_lr(iter_num)
        for param_group in optimizer.param_groups:
            param_group['lr'] = lr
        if evaluate and iter_num % eval_interval == 0:
            estimate_loss()
        logits, loss = compiled(X, Y)
        X, Y = get_batch('train')
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)


def train_with_eval():
    torch.manual_seed(0)
    train(TinyLM(dropout=0.1), 7, evaluate=True)


def train_no_eval():
    torch.manual_seed(0)
    train(TinyLM(dropout=0.1), 7, evaluate=False)


RECOMPILE_CASES = [
    ("train_with_eval", train_with_eval),
    ("train_no_eval", train_no_eval),
]
