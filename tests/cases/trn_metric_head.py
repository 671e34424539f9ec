"""Evaluation heads for image classifiers: top-k accuracy (timm's ``accuracy``) and the
expected calibration error of the softmax confidences (Guo et al., "On Calibration of Modern
Neural Networks"), both as compiled functions, plus a module that reports them per batch."""
import torch
import torch.nn as nn
import torch.nn.functional as F


@torch.compile
def topk_accuracy(logits, target, topk=(1,)):
    maxk = min(max(topk), logits.size(1))
    batch_size = target.size(0)
    _, pred = logits.topk(maxk, 1, True, True)
    pred = pred.t()
    correct = pred.eq(target.reshape(1, -1).expand_as(pred))
    return [correct[:min(k, maxk)].reshape(-1).float().sum(0) * 100.0 / batch_size for k in topk]


@torch.compile
def expected_calibration_error(logits, labels, n_bins=5):
    confidences, predictions = F.softmax(logits, dim=1).max(1)
    accuracies = predictions.eq(labels)
    bin_boundaries = torch.linspace(0, 1, n_bins + 1)
    ece = torch.zeros(1, device=logits.device)
    for bin_lower, bin_upper in zip(bin_boundaries[:-1], bin_boundaries[1:]):
        in_bin = confidences.gt(bin_lower) & confidences.le(bin_upper)
        prop_in_bin = in_bin.float().mean()
        if prop_in_bin.item() > 0:
            accuracy_in_bin = accuracies[in_bin].float().mean()
            avg_confidence_in_bin = confidences[in_bin].mean()
            ece += torch.abs(avg_confidence_in_bin - accuracy_in_bin) * prop_in_bin
    return ece


class ClassificationMetrics(nn.Module):
    def __init__(self, topk=(1, 3), n_bins=5):
        super().__init__()
        self.topk = topk
        self.n_bins = n_bins

    def forward(self, logits, target):
        metrics = {f"top{k}": acc for k, acc in zip(self.topk, topk_accuracy(logits, target, self.topk))}
        metrics["ece"] = expected_calibration_error(logits, target, self.n_bins)
        metrics["nll"] = F.cross_entropy(logits, target)
        return metrics


def _inputs():
    return torch.randn(6, 5) * 2, torch.tensor([0, 3, 1, 1, 4, 2])


CASES = [
    ("topk_accuracy", lambda: topk_accuracy, lambda: _inputs() + ((1, 3),)),
    ("ClassificationMetrics", ClassificationMetrics, _inputs),
]
