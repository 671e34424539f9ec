"""Multimodal rotary position ids (Qwen2-VL style): text tokens count up one by one, each image
span takes a (t, h, w) grid of positions read from its row of `image_grid`."""
import itertools

import torch
import torch.nn as nn


class MultimodalRopeIndex(nn.Module):
    def __init__(self, merge=2):
        super().__init__()
        self.merge = merge

    def grid_position_ids(self, start, grid):
        t, h, w = (
            grid[0].item(),
            grid[1].item() // self.merge,
            grid[2].item() // self.merge,
        )
        th, hh, ww = torch.meshgrid(torch.arange(t), torch.arange(h), torch.arange(w), indexing="ij")
        return torch.stack([th, hh, ww]).reshape(3, -1) + start

    def forward(self, input_ids, token_types, image_grid: torch.Tensor | None = None,
                video_grid: torch.Tensor | None = None, attention_mask: torch.Tensor | None = None):
        grid_iters = {
            1: iter(image_grid) if image_grid is not None else None,
            2: iter(video_grid) if video_grid is not None else None,
        }
        positions = []
        for batch_idx, ids in enumerate(input_ids):
            types = token_types[batch_idx]
            if attention_mask is not None:
                types = types[attention_mask[batch_idx].bool()]
            spans = []
            for kind, group in itertools.groupby(enumerate(types.tolist()), lambda item: item[1]):
                group = list(group)
                spans.append((kind, group[0][0], group[-1][0] + 1))
            current = 0
            pieces = []
            for kind, start, end in spans:
                if kind == 0:
                    pieces.append(torch.arange(end - start).view(1, -1).expand(3, -1) + current)
                    current += end - start
                else:
                    grid = next(grid_iters[kind])
                    pieces.append(self.grid_position_ids(current, grid))
                    current += pieces[-1].shape[1]
            positions.append(torch.cat(pieces, dim=1))
        return positions


class FixedGridRopeIndex(MultimodalRopeIndex):
    """Near-miss: every image takes a fixed 1 x 2 x 2 grid, its row of `image_grid` only scales it."""

    def grid_position_ids(self, start, grid):
        th, hh, ww = torch.meshgrid(torch.arange(1), torch.arange(2), torch.arange(2), indexing="ij")
        return (torch.stack([th, hh, ww]).reshape(3, -1) + start) * (grid.prod() > 0)


def _inputs():
    token_types = torch.tensor([[0, 0, 1, 1, 1, 1, 0, 0], [0, 1, 1, 1, 1, 0, 0, 0]])
    image_grid = torch.tensor([[1, 4, 4], [1, 4, 4]])
    return torch.randint(0, 50, (2, 8)), token_types, image_grid, None, torch.ones(2, 8, dtype=torch.long)


CASES = [
    ("MultimodalRopeIndex", MultimodalRopeIndex, _inputs),
    ("FixedGridRopeIndex", FixedGridRopeIndex, _inputs),
]
