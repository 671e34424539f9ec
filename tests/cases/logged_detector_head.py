"""Detection head and loss that report progress through the standard logging module."""
import logging

import torch
from torch import nn
from torch.nn import functional as F

logger = logging.getLogger(__name__)


class LoggedDetectionHead(nn.Module):
    def __init__(self, channels=8, anchors=3, classes=4):
        super().__init__()
        self.anchors = anchors
        self.classes = classes
        self.cls = nn.Conv2d(channels, anchors * classes, 3, padding=1)
        self.box = nn.Conv2d(channels, anchors * 4, 3, padding=1)

    def forward(self, features):
        logger.debug("head input %s", tuple(features.shape))
        cls_logits = self.cls(features)
        box_deltas = self.box(features)
        logger.info("predicting %d anchors x %d classes", self.anchors, self.classes)
        b, _, h, w = cls_logits.shape
        cls_logits = cls_logits.reshape(b, self.anchors, self.classes, h, w)
        box_deltas = box_deltas.reshape(b, self.anchors, 4, h, w)
        logger.debug("box deltas mean %.4f", box_deltas.mean())
        return cls_logits, box_deltas


class LoggedFocalLoss(nn.Module):
    def __init__(self, alpha=0.25, gamma=2.0):
        super().__init__()
        self.alpha = alpha
        self.gamma = gamma

    def forward(self, logits, targets):
        logger.info("focal loss with alpha=%.2f gamma=%.1f", self.alpha, self.gamma)
        p = logits.sigmoid()
        ce = F.binary_cross_entropy_with_logits(logits, targets, reduction="none")
        p_t = p * targets + (1 - p) * (1 - targets)
        loss = ce * (1 - p_t) ** self.gamma
        loss = (self.alpha * targets + (1 - self.alpha) * (1 - targets)) * loss
        logger.warning("loss is summed over %d elements", loss.numel())
        return loss.sum()


CASES = [
    ("LoggedDetectionHead", LoggedDetectionHead, lambda: (torch.randn(2, 8, 6, 6),)),
    ("LoggedFocalLoss", LoggedFocalLoss, lambda: (torch.randn(4, 5), (torch.rand(4, 5) > 0.7).float())),
]
