"""Quality focal loss (GFL) for dense detectors."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class QualityFocalLoss(nn.Module):
    def __init__(self, beta=2.0):
        super().__init__()
        self.beta = beta

    def forward(self, logits, labels, quality):
        prob = logits.sigmoid()
        positive = labels >= 0
        target = torch.zeros_like(logits)
        onehot = F.one_hot(labels.clamp(min=0), logits.shape[-1]).to(logits.dtype)
        target = torch.where(positive.unsqueeze(-1), onehot * quality.unsqueeze(-1), target)
        scale = torch.where(target > 0, (target - prob).abs(), prob).pow(self.beta)
        loss = F.binary_cross_entropy_with_logits(logits, target, reduction="none") * scale
        return loss.sum() / positive.sum().clamp(min=1)


CASES = [("QualityFocalLoss", QualityFocalLoss,
          lambda: (torch.randn(6, 4), torch.tensor([0, -1, 3, -1, 2, 1]), torch.rand(6)))]
