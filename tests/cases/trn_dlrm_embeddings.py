"""DLRM-style click-through-rate model (Naumov et al.).

Dense features go through a bottom MLP; each categorical feature is a multi-hot bag looked up
in its own ``nn.EmbeddingBag`` from a flat ``indices`` tensor with per-sample ``offsets``
(hashed into the table); pairwise dot-product interactions feed the top MLP.
"""
import torch
import torch.nn as nn


def mlp(dims, sigmoid_last=False):
    layers = []
    for i in range(len(dims) - 1):
        layers.append(nn.Linear(dims[i], dims[i + 1]))
        if i < len(dims) - 2:
            layers.append(nn.ReLU())
    if sigmoid_last:
        layers.append(nn.Sigmoid())
    return nn.Sequential(*layers)


class DLRM(nn.Module):
    def __init__(self, num_dense=4, table_sizes=(10, 12, 8), dim=8, top=(16, 1)):
        super().__init__()
        self.bottom = mlp((num_dense, 16, dim))
        self.tables = nn.ModuleList(nn.EmbeddingBag(n, dim, mode="sum") for n in table_sizes)
        num_features = len(table_sizes) + 1
        li, lj = torch.tril_indices(num_features, num_features, offset=-1)
        self.register_buffer("li", li, persistent=False)
        self.register_buffer("lj", lj, persistent=False)
        self.top = mlp((dim + li.numel(),) + tuple(top), sigmoid_last=True)

    def interact(self, dense, pooled):
        batch_size, dim = dense.shape
        feats = torch.cat([dense] + pooled, dim=1).view(batch_size, -1, dim)
        z = torch.bmm(feats, feats.transpose(1, 2))
        return torch.cat([dense, z[:, self.li, self.lj]], dim=1)

    def forward(self, dense, indices, offsets, per_sample_weights=None):
        x = self.bottom(dense)
        assert len(indices) == len(self.tables)
        pooled = []
        for k, table in enumerate(self.tables):
            idx = indices[k] % table.num_embeddings
            weights = None if per_sample_weights is None else per_sample_weights[k]
            pooled.append(table(idx, offsets[k], per_sample_weights=weights))
        return self.top(self.interact(x, pooled)).squeeze(-1)


def _inputs():
    indices = torch.tensor([[3, 17, 5, 9, 2, 11], [1, 1, 4, 30, 7, 6], [0, 2, 4, 6, 8, 10]])
    offsets = torch.tensor([[0, 2, 3], [0, 1, 4], [0, 3, 3]])
    return torch.randn(3, 4), indices, offsets


CASES = [
    ("DLRM", DLRM, _inputs),
    ("DLRM-weighted", DLRM, lambda: _inputs() + (torch.rand(3, 6),)),
]
