"""Single-stage detector post-processing: box decoding, clipping and score filtering.

``BoxCoder`` decodes (dx, dy, dw, dh) regression deltas against anchors with the usual
``log(1000 / 16)`` clamp on the size deltas (torchvision ``det_utils.BoxCoder``); detections are
then clipped to the image, thresholded and stripped of degenerate boxes.
"""
import math

import torch
import torch.nn as nn

from .vis_layers import box_area, remove_small_boxes


class BoxCoder:
    def __init__(self, weights=(1.0, 1.0, 1.0, 1.0), bbox_xform_clip=math.log(1000.0 / 16)):
        self.weights = weights
        self.bbox_xform_clip = bbox_xform_clip

    def decode(self, rel_codes, boxes):
        boxes = boxes.to(rel_codes.dtype)
        widths = boxes[:, 2] - boxes[:, 0]
        heights = boxes[:, 3] - boxes[:, 1]
        ctr_x = boxes[:, 0] + 0.5 * widths
        ctr_y = boxes[:, 1] + 0.5 * heights
        wx, wy, ww, wh = self.weights
        dx, dy = rel_codes[:, 0] / wx, rel_codes[:, 1] / wy
        dw = torch.clamp(rel_codes[:, 2] / ww, max=self.bbox_xform_clip)
        dh = torch.clamp(rel_codes[:, 3] / wh, max=self.bbox_xform_clip)
        pred_ctr_x, pred_ctr_y = dx * widths + ctr_x, dy * heights + ctr_y
        pred_w, pred_h = torch.exp(dw) * widths, torch.exp(dh) * heights
        return torch.stack([pred_ctr_x - 0.5 * pred_w, pred_ctr_y - 0.5 * pred_h,
                            pred_ctr_x + 0.5 * pred_w, pred_ctr_y + 0.5 * pred_h], dim=1)


@torch.compile
def select_topk_candidates(scores, boxes, score_thresh: float, topk: int):
    keep = scores > score_thresh
    scores, boxes = scores[keep], boxes[keep]
    num_topk = min(topk, scores.size(0))
    scores, idxs = scores.topk(num_topk)
    return scores, boxes[idxs]


class DetectionPostProcess(nn.Module):
    def __init__(self, score_thresh=0.3, topk_candidates=20, min_size=1.0):
        super().__init__()
        self.box_coder = BoxCoder(weights=(10.0, 10.0, 5.0, 5.0))
        self.score_thresh = score_thresh
        self.topk_candidates = topk_candidates
        self.min_size = min_size

    @staticmethod
    def clip_boxes_to_image(boxes, image_size):
        height, width = image_size.tolist()
        boxes_x = boxes[..., 0::2].clamp(min=0, max=width)
        boxes_y = boxes[..., 1::2].clamp(min=0, max=height)
        return torch.stack((boxes_x, boxes_y), dim=-1).reshape(boxes.shape)

    def forward(self, cls_logits, bbox_regression, anchors, image_size):
        boxes = self.box_coder.decode(bbox_regression, anchors)
        boxes = self.clip_boxes_to_image(boxes, image_size)
        scores, labels = torch.sigmoid(cls_logits).max(dim=-1)
        scores, boxes = select_topk_candidates(scores, boxes, self.score_thresh, self.topk_candidates)
        keep = remove_small_boxes(boxes, self.min_size)
        return {"boxes": boxes[keep], "scores": scores[keep], "areas": box_area(boxes[keep])}


def make_inputs():
    g = torch.Generator().manual_seed(0)
    anchors = torch.rand(30, 2, generator=g) * 24
    anchors = torch.cat([anchors, anchors + 8], dim=1)
    return torch.randn(30, 3, generator=g), torch.randn(30, 4, generator=g) * 0.1, anchors, torch.tensor([32, 28])


CASES = [("DetectionPostProcess", DetectionPostProcess, make_inputs)]
