"""Detection heads validating boxes, labels and losses with torch._assert (torchvision style)."""
import torch
from torch import nn
from torch.nn import functional as F


class BoxCoder(nn.Module):
    """Encodes proposals against reference boxes, checking both are well-formed."""

    def __init__(self, weights=(10.0, 10.0, 5.0, 5.0)):
        super().__init__()
        self.weights = weights

    def forward(self, reference, proposals):
        torch._assert((reference[:, 2:] > reference[:, :2]).all(), "reference boxes must have positive size")
        torch._assert((proposals[:, 2:] > proposals[:, :2]).all(), "proposals must have positive size")
        wx, wy, ww, wh = self.weights
        pw, ph = proposals[:, 2] - proposals[:, 0], proposals[:, 3] - proposals[:, 1]
        rw, rh = reference[:, 2] - reference[:, 0], reference[:, 3] - reference[:, 1]
        dx = wx * ((reference[:, 0] + 0.5 * rw) - (proposals[:, 0] + 0.5 * pw)) / pw
        dy = wy * ((reference[:, 1] + 0.5 * rh) - (proposals[:, 1] + 0.5 * ph)) / ph
        return torch.stack([dx, dy, ww * torch.log(rw / pw), wh * torch.log(rh / ph)], dim=1)


class CheckedClassificationLoss(nn.Module):
    """Cross-entropy over detections with label and loss validation."""

    def __init__(self, num_classes=5):
        super().__init__()
        self.num_classes = num_classes

    def forward(self, logits, labels):
        torch._assert((labels >= 0).all(), "labels must be non-negative")
        torch._assert((labels < self.num_classes).all(), "labels must be smaller than num_classes")
        loss = F.cross_entropy(logits, labels)
        torch._assert(torch.isfinite(loss), "classification loss is not finite")
        return loss


class ScoreFilter(nn.Module):
    """Turns logits into scores, asserting they are valid probabilities."""

    def forward(self, logits):
        scores = logits.sigmoid()
        torch._assert(((scores >= 0) & (scores <= 1)).all(), "scores must be probabilities")
        return scores * (scores > 0.05)


def _boxes():
    xy = torch.rand(6, 2) * 10
    return torch.cat([xy, xy + torch.rand(6, 2) * 5 + 1], dim=1)


CASES = [
    ("BoxCoder", BoxCoder, lambda: (_boxes(), _boxes())),
    ("CheckedClassificationLoss", CheckedClassificationLoss, lambda: (torch.randn(6, 5), torch.randint(0, 5, (6,)))),
    ("ScoreFilter", ScoreFilter, lambda: (torch.randn(4, 3),)),
]
