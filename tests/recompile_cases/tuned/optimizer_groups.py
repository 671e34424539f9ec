"""A training driver whose optimizer comes from a method that walks the model's modules and
parameters into weight-decay groups (minGPT's `configure_optimizers`): it only reads the model,
so the steps after it are followed. Training steps compile once (the near miss: the optimizer's
steps and the groups change nothing a guard reads); greedy decoding under no_grad from a
nested-list prompt recompiles once on the grad mode, and the prompt growing by the token `topk`
picks no more (that compile saw a new shape: its sizes are dynamic)."""
import torch
import torch.nn as nn
from torch.nn import functional as F


class TinyLM(nn.Module):
    def __init__(self, vocab=11, width=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)
        assert vocab > 1
        n_params = sum(p.numel() for p in self.parameters())

    def configure_optimizers(self, weight_decay, lr):
        decay, no_decay = set(), set()
        for mn, m in self.named_modules():
            for pn, p in m.named_parameters():
                full = '%s.%s' % (mn, pn) if mn else pn
                if pn.endswith('bias'):
                    no_decay.add(full)
                elif pn.endswith('weight') and isinstance(m, nn.Linear):
                    decay.add(full)
                elif pn.endswith('weight') and isinstance(m, (nn.LayerNorm, nn.Embedding)):
                    no_decay.add(full)
        params = {pn: p for pn, p in self.named_parameters()}
        groups = [
            {"params": [params[pn] for pn in sorted(decay)], "weight_decay": weight_decay},
            {"params": [params[pn] for pn in sorted(no_decay)], "weight_decay": 0.0},
        ]
        optimizer = torch.optim.AdamW(groups, lr=lr)
        return optimizer

    def forward(self, idx, targets=None):
        logits = self.head(self.norm(self.embed(idx)))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss

    @torch.no_grad()
    def greedy(self, idx, steps):
        for _ in range(steps):
            logits, _ = self(idx)
            _, next_token = torch.topk(logits[:, -1, :], k=1, dim=-1)
            idx = torch.cat((idx, next_token), dim=1)
        return idx


def train(model, optimizer, steps):
    model.train()
    for _ in range(steps):
        x = torch.randint(0, 11, (4, 8))
        _, loss = model(x, torch.randint(0, 11, (4, 8)))
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()


def train_steps():
    model = TinyLM()
    model.compile()
    optimizer = model.configure_optimizers(0.1, 1e-3)
    train(model, optimizer, 3)


def train_then_decode():
    model = TinyLM()
    model.compile()
    optimizer = model.configure_optimizers(0.1, 1e-3)
    train(model, optimizer, 2)
    model.eval()
    model.greedy(torch.tensor([[1, 2, 3]]), 3)


RECOMPILE_CASES = [
    ("train_steps", train_steps),
    ("train_then_decode", train_then_decode),
]
