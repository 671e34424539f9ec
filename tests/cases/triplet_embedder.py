"""Embedding networks trained with a triplet margin loss over the mined triplets of each batch."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from .triplet_mining import all_triplets, hardest_negative_distance


class TripletEmbedder(nn.Module):
    def __init__(self, in_dim=8, dim=4, margin=0.2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 16), nn.ReLU(), nn.Linear(16, dim))
        self.margin = margin

    def forward(self, x, labels):
        embeddings = F.normalize(self.net(x), dim=-1)
        anchors, positives, negatives = all_triplets(labels)
        distances = torch.cdist(embeddings, embeddings)
        violation = distances[anchors, positives] - distances[anchors, negatives] + self.margin
        return F.relu(violation).mean()


class HardNegativeEmbedder(nn.Module):
    """Near miss: the small-batch path of the miner is a masked minimum, which compiles."""

    def __init__(self, in_dim=8, dim=4, margin=0.2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 16), nn.ReLU(), nn.Linear(16, dim))
        self.margin = margin

    def forward(self, x, labels):
        embeddings = F.normalize(self.net(x), dim=-1)
        distances = torch.cdist(embeddings, embeddings)
        hardest = hardest_negative_distance(distances, labels)
        return F.relu(self.margin - hardest).mean()


def _batch():
    return torch.randn(8, 8), torch.tensor([0, 0, 1, 1, 2, 2, 3, 3])


CASES = [
    ("TripletEmbedder", TripletEmbedder, _batch),
    ("HardNegativeEmbedder", HardNegativeEmbedder, _batch),
]
