"""Generalized IoU loss for box regression (DETR)."""
import torch
import torch.nn as nn


def box_area(boxes):
    return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])


def generalized_box_iou(boxes1, boxes2):
    torch._assert((boxes1[:, 2:] >= boxes1[:, :2]).all(), "boxes1 must be in x0y0x1y1 format")
    torch._assert(boxes1.shape[-1] == 4, "boxes must have four coordinates")
    area1, area2 = box_area(boxes1), box_area(boxes2)
    lt = torch.max(boxes1[:, None, :2], boxes2[:, :2])
    rb = torch.min(boxes1[:, None, 2:], boxes2[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    union = area1[:, None] + area2 - inter
    iou = inter / union
    lt = torch.min(boxes1[:, None, :2], boxes2[:, :2])
    rb = torch.max(boxes1[:, None, 2:], boxes2[:, 2:])
    hull = (rb - lt).clamp(min=0).prod(-1)
    return iou - (hull - union) / hull


class GIoULoss(nn.Module):
    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def forward(self, pred, target):
        loss = 1 - torch.diag(generalized_box_iou(pred, target))
        if self.reduction == "sum":
            return loss.sum()
        return loss.mean()


def _boxes(n, seed):
    g = torch.Generator().manual_seed(seed)
    xy = torch.rand(n, 2, generator=g) * 10
    return torch.cat([xy, xy + 1 + torch.rand(n, 2, generator=g) * 5], dim=1)


CASES = [("GIoULoss", GIoULoss, lambda: (_boxes(5, 1), _boxes(5, 2)))]
