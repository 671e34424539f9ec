"""BYOL online/target networks: the target branch runs without gradients."""
import contextlib

import torch
import torch.nn as nn
import torch.nn.functional as F


class BYOL(nn.Module):
    def __init__(self, dim=16, proj=8, use_amp=False):
        super().__init__()
        self.online = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, proj))
        self.predictor = nn.Sequential(nn.Linear(proj, 16), nn.ReLU(), nn.Linear(16, proj))
        self.target = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, proj))
        self.target.requires_grad_(False)
        self.use_amp = use_amp

    def forward(self, view1, view2):
        amp = torch.autocast("cpu", dtype=torch.bfloat16) if self.use_amp else contextlib.nullcontext()
        with amp:
            p1 = self.predictor(self.online(view1))
            p2 = self.predictor(self.online(view2))
        with torch.no_grad():
            t1 = self.target(view1)
            t2 = self.target(view2)
        with torch.set_grad_enabled(self.training):
            loss = 2 - F.cosine_similarity(p1.float(), t2, dim=-1).mean() - F.cosine_similarity(p2.float(), t1, dim=-1).mean()
        return loss


CASES = [
    ("BYOL", BYOL, lambda: (torch.randn(4, 16), torch.randn(4, 16))),
    ("BYOL-amp", lambda: BYOL(use_amp=True), lambda: (torch.randn(4, 16), torch.randn(4, 16))),
]
