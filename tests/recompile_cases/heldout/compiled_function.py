"""A compiled loss function taking the number of negatives as an int used to slice a list and
a temperature used in arithmetic."""
import torch
import torch.nn.functional as F


@torch.compile
def contrastive(anchors, candidates, temperature: float):
    logits = anchors @ candidates.T / temperature
    return F.cross_entropy(logits, torch.arange(anchors.shape[0]))


@torch.compile
def top_layers(features, keep: int):
    return torch.stack(features[:keep]).mean(dim=0)


def temperature_sweep():
    a, c = torch.randn(4, 8), torch.randn(4, 8)
    for temperature in (0.05, 0.1, 0.2, 0.5):
        contrastive(a, c, temperature)


def keep_sweep():
    features = [torch.randn(4, 8) for _ in range(6)]
    for keep in (2, 3, 4):
        top_layers(features, keep)


def keep_fixed():
    features = [torch.randn(4, 8) for _ in range(6)]
    for _ in range(3):
        top_layers(features, 3)


RECOMPILE_CASES = [
    ("temperature_sweep", temperature_sweep),
    ("keep_sweep", keep_sweep),
    ("keep_fixed", keep_fixed),
]
