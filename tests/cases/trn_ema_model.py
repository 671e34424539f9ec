"""Exponential moving average of model weights (timm ``ModelEmaV2`` style) with warmup.

The wrapper owns the live model and its averaged copy. In training mode every forward runs the
live model and then folds its weights into the average with a decay that warms up from 0
towards ``decay``; in eval mode the averaged weights serve the predictions.
"""
import copy
import math

import torch
import torch.nn as nn

from .trn_common import TeacherMixin


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


class ConvClassifier(nn.Module):
    def __init__(self, in_ch=3, width=8, num_classes=5):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(in_ch, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU())
        self.head = nn.Linear(width, num_classes)
        self.scale = 1.0 / math.sqrt(width)

    def forward(self, x):
        feats = self.stem(x)
        if feats.size(-1) > 1:
            feats = feats.mean(dim=(2, 3))
        else:
            feats = feats.flatten(1)
        return self.head(feats * self.scale)


def _make_eval():
    ema = ModelEma(ConvClassifier())
    return ema.eval()


CASES = [
    ("ModelEma-train", lambda: ModelEma(ConvClassifier()), lambda: (torch.randn(2, 3, 6, 6),)),
    ("ModelEma-eval", _make_eval, lambda: (torch.randn(2, 3, 6, 6),)),
]
