"""Embedding models whose forward returns a pytorch-metric-learning loss, as the README shows."""
import torch
import torch.nn as nn
from pytorch_metric_learning import distances, losses, miners, reducers


class TripletEmbedder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(8, 4)
        self.loss_func = losses.TripletMarginLoss()

    def forward(self, x, labels):
        return self.loss_func(self.net(x), labels)


class MinedContrastive(nn.Module):
    """README: a miner's hard pairs passed to the loss."""

    def __init__(self):
        super().__init__()
        self.net = nn.Linear(8, 4)
        self.miner = miners.MultiSimilarityMiner()
        self.loss_func = losses.ContrastiveLoss()

    def forward(self, x, labels):
        embeddings = self.net(x)
        hard_pairs = self.miner(embeddings, labels)
        return self.loss_func(embeddings, labels, hard_pairs)


class CustomizedTriplet(nn.Module):
    """README: a loss with a distance and a reducer."""

    def __init__(self):
        super().__init__()
        self.net = nn.Linear(8, 4)
        self.loss_func = losses.TripletMarginLoss(distance=distances.CosineSimilarity(),
                                                  reducer=reducers.ThresholdReducer(high=0.3))

    def forward(self, x, labels):
        return self.loss_func(self.net(x), labels)


def _batch():
    return torch.randn(8, 8), torch.tensor([0, 0, 1, 1, 2, 2, 3, 3])


CASES = [
    ("TripletEmbedder", lambda: TripletEmbedder(), _batch),
    ("MinedContrastive", lambda: MinedContrastive(), _batch),
    ("CustomizedTriplet", lambda: CustomizedTriplet(), _batch),
]
