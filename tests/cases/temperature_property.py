"""Knowledge-distillation loss with an annealed, learnable temperature."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class DistillationLoss(nn.Module):
    def __init__(self, init_temperature=4.0, min_temperature=1.0, alpha=0.7):
        super().__init__()
        self.log_temperature = nn.Parameter(torch.tensor(init_temperature).log())
        self.min_temperature = min_temperature
        self.alpha = alpha

    @property
    def temperature(self):
        return max(self.log_temperature.exp().item(), self.min_temperature)

    def forward(self, student_logits, teacher_logits, labels):
        t = self.temperature
        soft = F.kl_div(
            F.log_softmax(student_logits / t, -1), F.softmax(teacher_logits / t, -1), reduction="batchmean"
        ) * t * t
        hard = F.cross_entropy(student_logits, labels)
        return self.alpha * soft + (1 - self.alpha) * hard


CASES = [("DistillationLoss", DistillationLoss,
          lambda: (torch.randn(4, 7), torch.randn(4, 7), torch.tensor([1, 0, 6, 3])))]
