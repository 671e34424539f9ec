"""Metric modules held by a model and called in forward, as torchmetrics' README shows."""
import torch
import torch.nn as nn
import torchmetrics
from torchmetrics.classification import MulticlassAccuracy


class ClassifierWithMetric(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 5)
        self.metric = torchmetrics.classification.Accuracy(task="multiclass", num_classes=5)

    def forward(self, x, target):
        preds = self.fc(x)
        acc = self.metric(preds, target)
        return preds, acc


class RegressorWithMSE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 1)
        self.mse = torchmetrics.MeanSquaredError()

    def forward(self, x, y):
        pred = self.fc(x).squeeze(-1)
        return pred, self.mse(pred, y)


class UpdateThenCompute(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 3)
        self.acc = MulticlassAccuracy(num_classes=3)

    def forward(self, x, target):
        logits = self.fc(x)
        self.acc.update(logits, target)
        return logits, self.acc.compute()


CASES = [
    ("ClassifierWithMetric", lambda: ClassifierWithMetric(), lambda: (torch.randn(6, 8), torch.tensor([0, 1, 2, 3, 4, 0]))),
    ("RegressorWithMSE", lambda: RegressorWithMSE(), lambda: (torch.randn(6, 8), torch.randn(6))),
    ("UpdateThenCompute", lambda: UpdateThenCompute(), lambda: (torch.randn(6, 8), torch.tensor([0, 1, 2, 0, 1, 2]))),
]
