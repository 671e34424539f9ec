"""The shapes of three linted files whose forward mutates its own state, called several times:
a checkpointed body counting its calls (tests/cases/cfg_checkpoint_side_effects.py), an EMA
wrapper counting its updates in a long buffer (tests/cases/trn_ema_model.py), and a warmup
counter in an int attribute (shared corpus 154_python_counter_attr.py)."""
import copy

import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class StatefulCheckpointBlock(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.calls = 0

    def _body(self, x):
        self.calls += 1
        return self.fc(x).tanh()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return checkpoint(self._body, x, use_reentrant=False)


class TeacherMixin:
    @torch.no_grad()
    def momentum_update(self, student: nn.Module, teacher: nn.Module, momentum):
        for p_s, p_t in zip(student.parameters(), teacher.parameters()):
            p_t.mul_(momentum).add_((1.0 - momentum) * p_s.detach())
        for b_s, b_t in zip(student.buffers(), teacher.buffers()):
            b_t.copy_(b_s)


class ModelEma(TeacherMixin, nn.Module):
    def __init__(self, model, decay=0.9998, warmup_power=0.75, min_decay=0.0, use_warmup=True):
        super().__init__()
        self.model = model
        self.ema = copy.deepcopy(model).eval()
        for p in self.ema.parameters():
            p.requires_grad_(False)
        self.decay = decay
        self.warmup_power = warmup_power
        self.min_decay = min_decay
        self.use_warmup = use_warmup
        self.register_buffer("num_updates", torch.zeros((), dtype=torch.long))

    def get_decay(self):
        if not self.use_warmup:
            return self.decay
        step = self.num_updates.float()
        decay = 1.0 - (1.0 + step) ** -self.warmup_power
        return decay.clamp(self.min_decay, self.decay)

    def forward(self, x):
        if self.training:
            out = self.model(x)
            self.num_updates += 1
            self.momentum_update(self.model, self.ema, self.get_decay())
            return out
        with torch.no_grad():
            return self.ema(x)


class SmallClassifier(nn.Module):
    def __init__(self, in_ch=3, width=8, num_classes=5):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(in_ch, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU())
        self.head = nn.Linear(width, num_classes)

    def forward(self, x):
        return self.head(self.stem(x).mean(dim=(2, 3)))


class WarmupScaledEmbedding(nn.Module):
    def __init__(self, vocab=40, dim=16, warmup=100):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.warmup = warmup
        self.step = 0

    def forward(self, tokens):
        self.step += 1
        scale = min(1.0, self.step / self.warmup)
        return self.emb(tokens) * scale


def checkpoint_counter():
    model = torch.compile(StatefulCheckpointBlock())
    x = torch.randn(2, 8, requires_grad=True)
    for _ in range(4):
        model(x)


def ema_train():
    model = torch.compile(ModelEma(SmallClassifier()))
    x = torch.randn(2, 3, 6, 6)
    for _ in range(4):
        model(x)


def ema_eval():
    model = torch.compile(ModelEma(SmallClassifier()).eval())
    x = torch.randn(2, 3, 6, 6)
    for _ in range(4):
        model(x)


def warmup_embedding():
    model = torch.compile(WarmupScaledEmbedding())
    tokens = torch.randint(0, 40, (2, 5))
    for _ in range(4):
        model(tokens)


RECOMPILE_CASES = [
    ("checkpoint_counter", checkpoint_counter),
    ("ema_train", ema_train),
    ("ema_eval", ema_eval),
    ("warmup_embedding", warmup_embedding),
]
