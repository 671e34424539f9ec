"""Calls that look harmless and that dynamo skips: yolov5's SPPF silencing a max_pool2d warning
inside `warnings.catch_warnings()`, a progress bar over the blocks, detr's Hungarian matcher
calling scipy's compiled `linear_sum_assignment`, and a `warnings.filterwarnings` outside any
`with`. Near misses: the same `with` with no call inside, tqdm only in `__init__`."""
import warnings

import torch
import torch.nn as nn
from scipy.optimize import linear_sum_assignment
from tqdm import tqdm


class SPPF(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.cv1 = nn.Conv2d(dim, dim, 1)
        self.m = nn.MaxPool2d(5, 1, 2)
        self.cv2 = nn.Conv2d(dim * 4, dim, 1)

    def forward(self, x):
        x = self.cv1(x)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y1 = self.m(x)
            y2 = self.m(y1)
            return self.cv2(torch.cat((x, y1, y2, self.m(y2)), 1))


class QuietPool(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.cv1 = nn.Conv2d(dim, dim, 1)
        self.m = nn.MaxPool2d(5, 1, 2)

    def forward(self, x):
        x = self.cv1(x)
        with warnings.catch_warnings():
            y = self.m(x)
        return x + y


class FilteredPool(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.cv1 = nn.Conv2d(dim, dim, 1)
        self.m = nn.MaxPool2d(5, 1, 2)

    def forward(self, x):
        warnings.filterwarnings("ignore", category=UserWarning)
        return self.m(self.cv1(x))


class ProgressStack(nn.Module):
    def __init__(self, dim=8, depth=3):
        super().__init__()
        self.blocks = nn.ModuleList(nn.Linear(dim, dim) for _ in range(depth))

    def forward(self, x):
        x = x * 2
        for block in tqdm(self.blocks, disable=True):
            x = block(x)
        return x.relu()


class ProgressInInit(nn.Module):
    def __init__(self, dim=8, depth=3):
        super().__init__()
        self.blocks = nn.ModuleList(nn.Linear(dim, dim) for _ in tqdm(range(depth), disable=True))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x.relu()


class HungarianMatcher(nn.Module):
    def __init__(self, dim=8, classes=5):
        super().__init__()
        self.logits = nn.Linear(dim, classes)

    @torch.no_grad()
    def forward(self, queries, labels):
        prob = self.logits(queries).softmax(-1)
        cost = -prob[:, labels]
        rows, cols = linear_sum_assignment(cost.cpu().numpy())
        return torch.as_tensor(rows), torch.as_tensor(cols)


CASES = [
    ("SPPF", SPPF, lambda: (torch.randn(1, 8, 6, 6),)),
    ("QuietPool", QuietPool, lambda: (torch.randn(1, 8, 6, 6),)),
    ("FilteredPool", FilteredPool, lambda: (torch.randn(1, 8, 6, 6),)),
    ("ProgressStack", ProgressStack, lambda: (torch.randn(2, 8),)),
    ("ProgressInInit", ProgressInInit, lambda: (torch.randn(2, 8),)),
    ("HungarianMatcher", HungarianMatcher, lambda: (torch.randn(4, 8), torch.tensor([0, 2, 1]))),
]
