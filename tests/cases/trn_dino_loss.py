"""DINO self-distillation (Caron et al.): a student and a momentum teacher share an
architecture; the teacher's outputs on the global crops are centred and sharpened and the
student's outputs on every crop are trained to match them across views."""
import copy

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

from .trn_common import TeacherMixin


class DINOHead(nn.Module):
    def __init__(self, in_dim=12, hidden=16, bottleneck=8, out_dim=10):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(in_dim, hidden), nn.GELU(), nn.Linear(hidden, bottleneck))
        self.last_layer = nn.Linear(bottleneck, out_dim, bias=False)

    def forward(self, x):
        return self.last_layer(F.normalize(self.mlp(x), dim=-1, p=2))


class DINO(TeacherMixin, nn.Module):
    def __init__(self, out_dim=10, student_temp=0.1, teacher_temp=0.04, center_momentum=0.9, momentum=0.996):
        super().__init__()
        self.student = nn.Sequential(nn.Linear(12, 12), nn.GELU(), DINOHead(out_dim=out_dim))
        self.teacher = copy.deepcopy(self.student)
        for p in self.teacher.parameters():
            p.requires_grad = False
        self.student_temp, self.teacher_temp = student_temp, teacher_temp
        self.center_momentum, self.momentum = center_momentum, momentum
        self.register_buffer("center", torch.zeros(1, out_dim))

    @torch.compiler.disable
    def _all_reduce(self, tensor):
        if dist.is_available() and dist.is_initialized():
            dist.all_reduce(tensor)
            tensor = tensor / dist.get_world_size()
        return tensor

    @torch.no_grad()
    def update_center(self, teacher_out):
        batch_center = self._all_reduce(teacher_out.sum(dim=0, keepdim=True)) / len(teacher_out)
        self.center.mul_(self.center_momentum).add_(batch_center, alpha=1 - self.center_momentum)

    def forward(self, global_crops, local_crops):
        n_global = global_crops.size(0)
        with torch.no_grad():
            teacher_out = self.teacher(global_crops.flatten(0, 1))
        self.check_collapse(teacher_out)
        teacher_probs = F.softmax((teacher_out - self.center) / self.teacher_temp, dim=-1).chunk(n_global)
        crops = [global_crops.flatten(0, 1), local_crops.flatten(0, 1)]
        student_out = torch.cat([self.student(c) for c in crops]) / self.student_temp
        student_logp = F.log_softmax(student_out, dim=-1).chunk(n_global + local_crops.size(0))
        total, n_terms = 0.0, 0
        for iq, q in enumerate(teacher_probs):
            for v, logp in enumerate(student_logp):
                if v == iq:
                    continue
                total = total + torch.sum(-q * logp, dim=-1).mean()
                n_terms += 1
        self.update_center(teacher_out)
        self.momentum_update(self.student, self.teacher, self.momentum)
        return total / n_terms


CASES = [("DINO", DINO, lambda: (torch.randn(2, 3, 12), torch.randn(3, 3, 12)))]
