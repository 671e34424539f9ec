"""Metric losses that hand their reducer a dict naming the reduction, which the reducer looks
up with str.format as pytorch-metric-learning's BaseReducer does: a hinge loss asks for the
thresholded reduction (a boolean-mask subscript, data-dependent size), the near miss for the
plain mean."""
import torch
import torch.nn as nn


class NamedReducer(nn.Module):
    def __init__(self, low=0.0):
        super().__init__()
        self.low = low

    def get_reduction_func(self, reduction_type):
        return getattr(self, "{}_reduction".format(reduction_type))

    def element_reduction(self, losses):
        return losses.mean()

    def threshold_reduction(self, losses):
        kept = losses[losses > self.low]
        return kept.mean()

    def forward(self, loss_info):
        reduction_func = self.get_reduction_func(loss_info["reduction_type"])
        return reduction_func(loss_info["losses"])


class HingeEmbeddingLoss(nn.Module):
    def __init__(self, margin=1.0):
        super().__init__()
        self.margin = margin
        self.proj = nn.Linear(8, 4)
        self.reducer = NamedReducer()

    def compute_loss(self, x, y):
        similarity = (self.proj(x) * self.proj(y)).sum(-1)
        return {"losses": torch.relu(self.margin - similarity), "reduction_type": "threshold"}

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return self.reducer(self.compute_loss(x, y))


class SquaredEmbeddingLoss(HingeEmbeddingLoss):
    def compute_loss(self, x, y):
        distance = (self.proj(x) - self.proj(y)).pow(2).sum(-1)
        return {"losses": distance, "reduction_type": "element"}


CASES = [
    ("HingeEmbeddingLoss", HingeEmbeddingLoss, lambda: (torch.randn(6, 8), torch.randn(6, 8))),
    ("SquaredEmbeddingLoss", SquaredEmbeddingLoss, lambda: (torch.randn(6, 8), torch.randn(6, 8))),
]
