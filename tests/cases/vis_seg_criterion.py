"""Semantic segmentation model (DeepLab-style head) that returns its loss in training mode.

Losses live in a mixin shared by all segmentation heads of the codebase: pixel-wise cross
entropy that skips the ``ignore_index`` label, plus an OHEM variant that keeps the hardest pixels.
"""
import torch
import torch.nn.functional as F
from torch import nn


class SegmentationLossMixin:
    ignore_index = 255
    ohem_ratio = 0.0

    def _valid_pixels(self, logits, target):
        num_classes = logits.shape[1]
        logits = logits.permute(0, 2, 3, 1).reshape(-1, num_classes)
        target = target.reshape(-1)
        valid = target != self.ignore_index
        return logits[valid], target[valid]

    def segmentation_loss(self, logits, target):
        if logits.shape[-2:] != target.shape[-2:]:
            logits = F.interpolate(logits, size=target.shape[-2:], mode="bilinear", align_corners=False)
        logits, target = self._valid_pixels(logits, target)
        losses = F.cross_entropy(logits, target, reduction="none")
        if self.ohem_ratio > 0:
            k = max(1, int(self.ohem_ratio * losses.numel()))
            losses = losses.topk(k).values
        return losses.mean()


class ASPPLite(nn.Module):
    def __init__(self, in_ch, out_ch, rates=(1, 2, 3)):
        super().__init__()
        self.branches = nn.ModuleList(
            nn.Sequential(nn.Conv2d(in_ch, out_ch, 3, padding=r, dilation=r, bias=False), nn.BatchNorm2d(out_ch), nn.ReLU())
            for r in rates
        )
        self.project = nn.Conv2d(out_ch * len(rates), out_ch, 1)

    def forward(self, x):
        return self.project(torch.cat([branch(x) for branch in self.branches], dim=1))


class DeepLabHead(nn.Module, SegmentationLossMixin):
    def __init__(self, in_ch=8, mid_ch=16, num_classes=5, ohem_ratio=0.0):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, in_ch, 3, stride=2, padding=1), nn.ReLU())
        self.aspp = ASPPLite(in_ch, mid_ch)
        self.classifier = nn.Conv2d(mid_ch, num_classes, 1)
        self.ohem_ratio = ohem_ratio

    def forward(self, images, target=None):
        logits = self.classifier(self.aspp(self.stem(images)))
        if target is None:
            return F.interpolate(logits, size=images.shape[-2:], mode="bilinear", align_corners=False)
        return self.segmentation_loss(logits, target)


def make_batch():
    target = torch.randint(0, 5, (2, 8, 8))
    target[:, :2] = 255
    return torch.randn(2, 3, 8, 8), target


CASES = [
    ("DeepLabHead-loss", DeepLabHead, make_batch),
    ("DeepLabHead-ohem", lambda: DeepLabHead(ohem_ratio=0.25), make_batch),
    ("DeepLabHead-infer", lambda: DeepLabHead().eval(), lambda: (torch.randn(1, 3, 8, 8),)),
]
