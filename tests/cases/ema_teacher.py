"""Mean-teacher consistency wrapper; the teacher is created from the student on first use."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class MeanTeacher(nn.Module):
    def __init__(self, student, momentum=0.99):
        super().__init__()
        self.student = student
        self.momentum = momentum
        self.teacher = None

    def _teacher(self):
        if self.teacher is None:
            self.teacher = copy.deepcopy(self.student)
            for p in self.teacher.parameters():
                p.requires_grad_(False)
        return self.teacher

    def forward(self, weak, strong):
        with torch.no_grad():
            target = self._teacher()(weak).softmax(-1)
        pred = self.student(strong).log_softmax(-1)
        return F.kl_div(pred, target, reduction="batchmean")


def _make():
    return MeanTeacher(nn.Sequential(nn.Linear(12, 24), nn.ReLU(), nn.Linear(24, 6)))


CASES = [("MeanTeacher", _make, lambda: (torch.randn(4, 12), torch.randn(4, 12)))]
