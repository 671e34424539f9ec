"""A detection post-processor that turns on dynamic-output-shape capture at module level, so
nonzero and boolean masking are traced; the scalar it reads back still breaks, as that needs
capture_scalar_outputs, which this module does not set."""
import torch
import torch.nn as nn

torch._dynamo.config.capture_dynamic_output_shape_ops = True


class ScoreFilter(nn.Module):
    def __init__(self, dim=8, threshold=0.5):
        super().__init__()
        self.score = nn.Linear(dim, 1)
        self.threshold = threshold

    def forward(self, boxes: torch.Tensor, feats: torch.Tensor) -> torch.Tensor:
        scores = self.score(feats).squeeze(-1).sigmoid()
        keep = torch.nonzero(scores > self.threshold).squeeze(-1)
        return boxes[keep], scores[keep]


class MaskedMean(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        positive = h[h > 0]
        count = positive.numel()
        return positive.sum() / max(count, 1)


class CountedFilter(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        kept = h.nonzero()
        return h * float(kept.shape[0]) / (h > 0).sum().item()


CASES = [
    ("ScoreFilter", ScoreFilter, lambda: (torch.rand(6, 4), torch.randn(6, 8))),
    ("MaskedMean", MaskedMean, lambda: (torch.randn(4, 8),)),
    ("CountedFilter", CountedFilter, lambda: (torch.randn(4, 8),)),
]
