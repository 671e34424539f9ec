"""Softmax focal loss for semantic segmentation with an ``ignore_index`` for void pixels
(Lin et al., as used by dense-prediction heads), plus a small FCN head trained with it.

Logits of shape (N, C, H, W) are flattened to one row per pixel, void pixels are dropped and
the remaining ones are weighted by ``(1 - p_t) ** gamma`` and an optional per-class alpha.
"""
import torch as th
import torch.nn as nn
import torch.nn.functional as F

from .trn_common import ReductionMixin


class FocalLoss(ReductionMixin, nn.Module):
    def __init__(self, gamma=2.0, alpha=None, ignore_index=255, reduction="mean"):
        super().__init__()
        self.gamma = gamma
        self.ignore_index = ignore_index
        self.reduction = reduction
        if alpha is not None:
            self.register_buffer("alpha", th.as_tensor(alpha, dtype=th.float32))
        else:
            self.alpha = None

    @staticmethod
    def _flatten(logits, target):
        if logits.dim() > 2:
            num_classes = logits.size(1)
            logits = logits.flatten(2).transpose(1, 2).reshape(-1, num_classes)
            target = target.reshape(-1)
        return logits, target

    def _drop_ignored(self, logits, target):
        keep = target != self.ignore_index
        return logits[keep], target[keep]

    def forward(self, logits, target):
        logits, target = self._drop_ignored(*self._flatten(logits, target))
        logpt = F.log_softmax(logits, dim=-1).gather(1, target[:, None]).squeeze(1)
        pt = logpt.exp()
        loss = -((1.0 - pt) ** self.gamma) * logpt
        if self.alpha is not None:
            loss = loss * self.alpha.gather(0, target)
        return self.reduce_loss(loss)


class FCNHead(nn.Module):
    def __init__(self, in_ch=4, mid=8, num_classes=3):
        super().__init__()
        self.block = nn.Sequential(
            nn.Conv2d(in_ch, mid, 3, padding=1, bias=False), nn.BatchNorm2d(mid), nn.ReLU(inplace=True),
            nn.Conv2d(mid, num_classes, 1),
        )
        self.criterion = FocalLoss(gamma=2.0, alpha=[0.25, 0.5, 0.25])

    def forward(self, feats, target):
        logits = self.block(feats)
        if logits.shape[-2:] != target.shape[-2:]:
            logits = F.interpolate(logits, size=target.shape[-2:], mode="bilinear", align_corners=False)
        return self.criterion(logits, target), logits.argmax(1)


def _seg_target():
    target = th.tensor([[[0, 1, 2, 255], [1, 1, 255, 2], [0, 0, 2, 2]]])
    return target.expand(2, -1, -1).contiguous()


CASES = [
    ("FocalLoss", FocalLoss, lambda: (th.randn(2, 3, 3, 4), _seg_target())),
    ("FCNHead", FCNHead, lambda: (th.randn(2, 4, 3, 4), _seg_target())),
]
