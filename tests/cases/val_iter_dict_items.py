"""Loss dictionaries summed in forward: iterating .items() of a dict of tensors traces, and
so do keys and weights looked up by name; a loss logged with .item() inside the loop, or a
branch on a term's value, breaks on that term."""
import torch
import torch.nn as nn


class WeightedLossSum(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = {"cls": 1.0, "box": 2.0, "obj": 0.5}

    def forward(self, pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        terms = {"cls": (pred - target).abs().mean(), "box": (pred - target).pow(2).mean(), "obj": pred.mean()}
        total = 0
        for name, term in terms.items():
            total = total + self.weights[name] * term
        return total


class LoggedLossSum(nn.Module):
    def forward(self, pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        terms = {"l1": (pred - target).abs().mean(), "l2": (pred - target).pow(2).mean()}
        stats = {}
        for name, term in terms.items():
            stats[name] = term.item()
        return sum(terms.values()) * len(stats)


class SkipZeroTerms(nn.Module):
    def forward(self, pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        terms = {"l1": (pred - target).abs().mean(), "reg": pred.pow(2).mean()}
        total = pred.new_zeros(())
        for term in terms.values():
            if term > 0:
                total = total + term
        return total


CASES = [
    ("WeightedLossSum", WeightedLossSum, lambda: (torch.randn(2, 4), torch.randn(2, 4))),
    ("LoggedLossSum", LoggedLossSum, lambda: (torch.randn(2, 4), torch.randn(2, 4))),
    ("SkipZeroTerms", SkipZeroTerms, lambda: (torch.randn(2, 4), torch.randn(2, 4))),
]
