"""Sparse tensors built in forward: a COO adjacency from index and value tensors, a dense
mask turned sparse with to_sparse(), and a dense-only path for the near miss."""
import torch
import torch.nn as nn


class SparseGraphConv(nn.Module):
    def __init__(self, dim=8, nodes=5):
        super().__init__()
        self.nodes = nodes
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, edges: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
        adj = torch.sparse_coo_tensor(edges, weights, (self.nodes, self.nodes))
        return torch.sparse.mm(adj, self.fc(x))


class SparsifiedMask(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        mask = (h > 0).float().to_sparse()
        return mask.to_dense() * h


class DenseGraphConv(nn.Module):
    def __init__(self, dim=8, nodes=5):
        super().__init__()
        self.nodes = nodes
        self.fc = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, edges: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
        adj = x.new_zeros(self.nodes, self.nodes).index_put((edges[0], edges[1]), weights, accumulate=True)
        return adj @ self.fc(x)


def _graph():
    edges = torch.tensor([[0, 1, 2, 3, 4], [1, 2, 3, 4, 0]])
    return torch.randn(5, 8), edges, torch.rand(5)


CASES = [
    ("SparseGraphConv", SparseGraphConv, _graph),
    ("SparsifiedMask", SparsifiedMask, lambda: (torch.randn(2, 8),)),
    ("DenseGraphConv", DenseGraphConv, _graph),
]
