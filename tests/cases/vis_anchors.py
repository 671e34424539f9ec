"""Multi-level anchor generator for single-stage and two-stage detectors.

Cell anchors are built once per (size, aspect ratio) set and shifted over every feature map
location; strides are derived from the image and feature sizes (torchvision ``AnchorGenerator``).
"""
import numpy as np
import torch
import torch.nn as nn


class AnchorGenerator(nn.Module):
    def __init__(self, sizes=((16,), (32,), (64,)), aspect_ratios=(0.5, 1.0, 2.0)):
        super().__init__()
        if not isinstance(sizes[0], (list, tuple)):
            sizes = tuple((s,) for s in sizes)
        if not isinstance(aspect_ratios[0], (list, tuple)):
            aspect_ratios = (aspect_ratios,) * len(sizes)
        self.sizes = sizes
        self.aspect_ratios = aspect_ratios
        self.cell_anchors = [self.generate_anchors(size, ar) for size, ar in zip(sizes, aspect_ratios)]

    @staticmethod
    def generate_anchors(scales, aspect_ratios, dtype=torch.float32):
        scales = torch.as_tensor(scales, dtype=dtype)
        aspect_ratios = torch.as_tensor(aspect_ratios, dtype=dtype)
        h_ratios = torch.sqrt(aspect_ratios)
        w_ratios = 1 / h_ratios
        ws = (w_ratios[:, None] * scales[None, :]).view(-1)
        hs = (h_ratios[:, None] * scales[None, :]).view(-1)
        base_anchors = torch.stack([-ws, -hs, ws, hs], dim=1) / 2
        return base_anchors.round()

    def num_anchors_per_location(self):
        return [len(s) * len(a) for s, a in zip(self.sizes, self.aspect_ratios)]

    def grid_anchors(self, grid_sizes, strides, dtype, device):
        anchors = []
        cell_anchors = [a.to(dtype=dtype, device=device) for a in self.cell_anchors]
        if not (len(grid_sizes) == len(strides) == len(cell_anchors)):
            raise ValueError("Anchors should be Tuple[Tuple[int]] because each feature map could "
                             "potentially have different sizes and aspect ratios.")
        for size, stride, base_anchors in zip(grid_sizes, strides, cell_anchors):
            grid_height, grid_width = size
            stride_height, stride_width = stride
            shifts_x = torch.arange(0, grid_width, dtype=torch.int32, device=device) * stride_width
            shifts_y = torch.arange(0, grid_height, dtype=torch.int32, device=device) * stride_height
            shift_y, shift_x = torch.meshgrid(shifts_y, shifts_x, indexing="ij")
            shift_x, shift_y = shift_x.reshape(-1), shift_y.reshape(-1)
            shifts = torch.stack((shift_x, shift_y, shift_x, shift_y), dim=1)
            anchors.append((shifts.view(-1, 1, 4) + base_anchors.view(1, -1, 4)).reshape(-1, 4))
        return anchors

    def forward(self, images, feature_maps):
        grid_sizes = [tuple(feature_map.shape[-2:]) for feature_map in feature_maps]
        image_size = images.shape[-2:]
        dtype, device = feature_maps[0].dtype, feature_maps[0].device
        ratios = np.array(image_size, dtype=np.int64)[None, :] // np.array(grid_sizes, dtype=np.int64)
        strides = [
            [torch.empty((), dtype=torch.int64, device=device).fill_(sh), torch.empty((), dtype=torch.int64, device=device).fill_(sw)]
            for sh, sw in ratios.tolist()
        ]
        anchors_over_all_feature_maps = self.grid_anchors(grid_sizes, strides, dtype, device)
        anchors = [torch.cat(anchors_over_all_feature_maps) for _ in range(int(images.shape[0]))]
        return anchors


def make_inputs():
    images = torch.randn(2, 3, 32, 32)
    feats = [torch.randn(2, 4, 8, 8), torch.randn(2, 4, 4, 4), torch.randn(2, 4, 2, 2)]
    return images, feats


CASES = [("AnchorGenerator", AnchorGenerator, make_inputs)]
