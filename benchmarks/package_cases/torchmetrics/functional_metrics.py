"""Models that compute torchmetrics' functional metrics inside forward."""
import torch
import torch.nn as nn
from torchmetrics.functional import accuracy, f1_score, pairwise_cosine_similarity
from torchmetrics.functional.image import peak_signal_noise_ratio, structural_similarity_index_measure


class ClassifierWithAccuracy(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 5)

    def forward(self, x, target):
        logits = self.fc(x)
        acc = accuracy(logits, target, task="multiclass", num_classes=5)
        f1 = f1_score(logits, target, task="multiclass", num_classes=5)
        return logits, acc, f1


class SimilarityHead(nn.Module):
    def forward(self, x, y):
        return pairwise_cosine_similarity(x, y)


class DenoiserWithImageMetrics(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 1, 3, padding=1)

    def forward(self, noisy, clean):
        out = self.conv(noisy)
        psnr = peak_signal_noise_ratio(out, clean, data_range=1.0)
        ssim = structural_similarity_index_measure(out, clean, data_range=1.0)
        return out, psnr, ssim


CASES = [
    ("ClassifierWithAccuracy", lambda: ClassifierWithAccuracy(), lambda: (torch.randn(6, 8), torch.tensor([0, 1, 2, 3, 4, 0]))),
    ("SimilarityHead", lambda: SimilarityHead(), lambda: (torch.randn(3, 4), torch.randn(5, 4))),
    ("DenoiserWithImageMetrics", lambda: DenoiserWithImageMetrics(), lambda: (torch.rand(1, 1, 16, 16), torch.rand(1, 1, 16, 16))),
]
