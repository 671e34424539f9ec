"""Anchor generator for a single-level detector (RetinaNet-style sizes and aspect ratios)."""
import copy

import torch
import torch.nn as nn


class AnchorGenerator(nn.Module):
    def __init__(self, sizes=(8, 16), aspect_ratios=(0.5, 1.0, 2.0), stride=4, add_image_size=True):
        super().__init__()
        self.sizes = list(sizes)
        self.aspect_ratios = list(aspect_ratios)
        self.stride = stride
        self.add_image_size = add_image_size

    def cell_anchors(self, sizes):
        scales = torch.tensor(sizes, dtype=torch.float32)
        ratios = torch.tensor(self.aspect_ratios)
        h = (scales[:, None] * ratios.sqrt()[None, :]).flatten()
        w = (scales[:, None] / ratios.sqrt()[None, :]).flatten()
        return torch.stack([-w, -h, w, h], dim=1) / 2

    def forward(self, feature_map, image):
        sizes = copy.copy(self.sizes)
        if self.add_image_size:
            sizes.append(min(image.shape[-2:]))
        base = self.cell_anchors(sizes)
        fh, fw = feature_map.shape[-2:]
        ys = torch.arange(fh, dtype=torch.float32) * self.stride
        xs = torch.arange(fw, dtype=torch.float32) * self.stride
        cy, cx = torch.meshgrid(ys, xs, indexing="ij")
        shifts = torch.stack([cx, cy, cx, cy], dim=-1).reshape(-1, 1, 4)
        return (shifts + base[None]).reshape(-1, 4)


CASES = [("AnchorGenerator", AnchorGenerator, lambda: (torch.randn(1, 8, 3, 4), torch.randn(1, 3, 12, 16)))]
