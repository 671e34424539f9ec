"""Two-layer graph convolutional network (Kipf & Welling) for node classification.

Messages are normalised by the symmetric degree normalisation ``D^-1/2 (A + I) D^-1/2``
computed from the COO ``edge_index``; the number of nodes is taken from the features or,
for layers built with ``infer_num_nodes``, from the largest node id in the edges.
"""
import torch
from torch import nn
import torch.nn.functional as F

from .trn_common import maybe_num_nodes, scatter_sum


def gcn_norm(edge_index, edge_weight=None, num_nodes=None, add_self_loops=True):
    num_nodes = maybe_num_nodes(edge_index, num_nodes)
    if edge_weight is None:
        edge_weight = torch.ones(edge_index.size(1), device=edge_index.device)
    if add_self_loops:
        loop = torch.arange(num_nodes, device=edge_index.device)
        edge_index = torch.cat([edge_index, torch.stack([loop, loop])], dim=1)
        edge_weight = torch.cat([edge_weight, edge_weight.new_ones(num_nodes)])
    row, col = edge_index[0], edge_index[1]
    deg = scatter_sum(edge_weight, col, num_nodes)
    deg_inv_sqrt = deg.pow(-0.5).masked_fill(deg == 0, 0.0)
    return edge_index, deg_inv_sqrt[row] * edge_weight * deg_inv_sqrt[col], num_nodes


class GCNConv(nn.Module):
    def __init__(self, in_dim, out_dim, infer_num_nodes=False):
        super().__init__()
        self.lin = nn.Linear(in_dim, out_dim, bias=False)
        self.bias = nn.Parameter(torch.zeros(out_dim))
        self.infer_num_nodes = infer_num_nodes

    def forward(self, x, edge_index, edge_weight=None):
        num_nodes = None if self.infer_num_nodes else x.size(0)
        edge_index, norm, num_nodes = gcn_norm(edge_index, edge_weight, num_nodes)
        h = self.lin(x)
        src, dst = edge_index
        out = scatter_sum(h[src] * norm.unsqueeze(-1), dst, num_nodes)
        return out + self.bias


class GCN(nn.Module):
    def __init__(self, in_dim=6, hidden=8, num_classes=3, dropout=0.5, infer_num_nodes=False):
        super().__init__()
        self.conv1 = GCNConv(in_dim, hidden, infer_num_nodes)
        self.conv2 = GCNConv(hidden, num_classes, infer_num_nodes)
        self.dropout = dropout

    def forward(self, x, edge_index):
        x = F.dropout(x, p=self.dropout, training=self.training)
        x = F.relu(self.conv1(x, edge_index))
        x = F.dropout(x, p=self.dropout, training=self.training)
        return F.log_softmax(self.conv2(x, edge_index), dim=1)


def _graph():
    edge_index = torch.tensor([[0, 1, 1, 2, 3, 4, 4], [1, 0, 2, 1, 4, 3, 0]])
    return torch.randn(5, 6), edge_index


CASES = [
    ("GCN", lambda: GCN().eval(), _graph),
    ("GCN-infer-num-nodes", lambda: GCN(infer_num_nodes=True).eval(), _graph),
]
