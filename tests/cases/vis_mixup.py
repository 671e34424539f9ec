"""Batch-level Mixup / CutMix with label smoothing, applied inside the training step.

Mirrors timm's ``Mixup`` helper: per batch, draw ``lam`` from Beta(alpha, alpha), then either
blend two shuffled copies of the batch (Mixup) or paste a random box (CutMix).
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def one_hot(target, num_classes, on_value=1.0, off_value=0.0):
    return torch.full((target.size(0), num_classes), off_value, device=target.device).scatter_(1, target.unsqueeze(1), on_value)


def mixup_target(target, num_classes, lam=1.0, smoothing=0.0):
    off_value = smoothing / num_classes
    on_value = 1.0 - smoothing + off_value
    y1 = one_hot(target, num_classes, on_value, off_value)
    y2 = one_hot(target.flip(0), num_classes, on_value, off_value)
    return y1 * lam + y2 * (1.0 - lam)


class MixupCutmix(nn.Module):
    def __init__(self, mixup_alpha=0.8, cutmix_alpha=1.0, switch_prob=0.5, label_smoothing=0.1, num_classes=10):
        super().__init__()
        self.mixup_alpha = mixup_alpha
        self.cutmix_alpha = cutmix_alpha
        self.switch_prob = switch_prob
        self.label_smoothing = label_smoothing
        self.num_classes = num_classes

    def forward(self, x, target):
        if not self.training:
            return x, F.one_hot(target, self.num_classes).float()

        def sample_lambda():
            use_cutmix = np.random.rand() < self.switch_prob
            alpha = self.cutmix_alpha if use_cutmix else self.mixup_alpha
            return float(np.random.beta(alpha, alpha)), use_cutmix

        lam, use_cutmix = sample_lambda()
        if use_cutmix:
            H, W = x.shape[-2:]
            cut_rat = np.sqrt(1.0 - lam)
            cut_h, cut_w = int(H * cut_rat), int(W * cut_rat)
            cy, cx = np.random.randint(H), np.random.randint(W)
            yl, yh = np.clip(cy - cut_h // 2, 0, H), np.clip(cy + cut_h // 2, 0, H)
            xl, xh = np.clip(cx - cut_w // 2, 0, W), np.clip(cx + cut_w // 2, 0, W)
            x[:, :, yl:yh, xl:xh] = x.flip(0)[:, :, yl:yh, xl:xh]
            lam = 1.0 - float((yh - yl) * (xh - xl)) / float(H * W)
        else:
            x = x * lam + x.flip(0) * (1.0 - lam)
        return x, mixup_target(target, self.num_classes, lam, self.label_smoothing)


class MixupClassifier(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.mixup = MixupCutmix(num_classes=num_classes)
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(8, num_classes)

    def forward(self, images, target):
        images, soft_target = self.mixup(images, target)
        logits = self.head(self.backbone(images))
        return torch.sum(-soft_target * F.log_softmax(logits, dim=-1), dim=-1).mean()


CASES = [
    ("MixupClassifier-train", MixupClassifier, lambda: (torch.randn(4, 3, 8, 8), torch.tensor([1, 3, 5, 7]))),
    ("MixupClassifier-eval", lambda: MixupClassifier().eval(), lambda: (torch.randn(2, 3, 8, 8), torch.tensor([0, 9]))),
]
