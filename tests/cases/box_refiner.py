"""Iterative box refinement head in the style of two-stage detectors."""
import torch
import torch.nn as nn


class BoxRefiner(nn.Module):
    """Refines proposal boxes with a small MLP and stops early when no proposal is confident."""

    def __init__(self, feat_dim=32, hidden=64, score_threshold=0.05):
        super().__init__()
        self.score_threshold = score_threshold
        self.trunk = nn.Sequential(nn.Linear(feat_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.delta = nn.Linear(hidden, 4)
        self.score = nn.Linear(hidden, 1)

    def forward(self, features, boxes):
        if features.dim() != 2:
            features = features.flatten(0, -2)
        h = self.trunk(features)
        scores = self.score(h).squeeze(-1).sigmoid()
        if scores.max() < self.score_threshold:
            return boxes, scores
        deltas = self.delta(h).tanh() * 0.1
        widths = (boxes[:, 2:] - boxes[:, :2]).repeat(1, 2)
        return boxes + deltas * widths, scores


def _inputs():
    xy = torch.rand(16, 2) * 50
    wh = torch.rand(16, 2) * 20 + 1
    return torch.randn(16, 32), torch.cat([xy, xy + wh], dim=1)


CASES = [("BoxRefiner", BoxRefiner, _inputs)]
