"""Graph attention network (GAT, Velickovic et al.) with explicit message passing.

Edges are given in COO form ``edge_index = [source; target]``. Each layer adds self loops,
scores every edge with a shared attention vector, normalises the scores with a softmax over
the incoming edges of each target node and sums the weighted messages per node.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from .trn_common import scatter_sum


def add_self_loops(edge_index, num_nodes):
    loop = torch.arange(num_nodes, device=edge_index.device)
    return torch.cat([edge_index, torch.stack([loop, loop])], dim=1)


def edge_softmax(scores, index, num_nodes):
    expanded = index.unsqueeze(-1).expand_as(scores)
    node_max = scores.new_full((num_nodes, scores.size(1)), float("-inf"))
    node_max = node_max.scatter_reduce(0, expanded, scores, reduce="amax", include_self=True)
    scores = (scores - node_max.gather(0, expanded)).exp()
    denom = scatter_sum(scores, index, num_nodes)
    return scores / (denom.gather(0, expanded) + 1e-16)


class GATConv(nn.Module):
    def __init__(self, in_dim, out_dim, heads=2, concat=True, negative_slope=0.2, dropout=0.0):
        super().__init__()
        self.heads, self.out_dim, self.concat = heads, out_dim, concat
        self.lin = nn.Linear(in_dim, heads * out_dim, bias=False)
        self.att_src = nn.Parameter(torch.randn(1, heads, out_dim) * 0.1)
        self.att_dst = nn.Parameter(torch.randn(1, heads, out_dim) * 0.1)
        self.negative_slope = negative_slope
        self.dropout = dropout

    def message(self, x_j, alpha):
        return x_j * alpha.unsqueeze(-1)

    def forward(self, x, edge_index):
        assert edge_index.dim() == 2 and edge_index.size(0) == 2
        num_nodes = x.size(0)
        h = self.lin(x).view(num_nodes, self.heads, self.out_dim)
        edge_index = add_self_loops(edge_index, num_nodes)
        src, dst = edge_index[0], edge_index[1]
        alpha = (h * self.att_src).sum(-1)[src] + (h * self.att_dst).sum(-1)[dst]
        alpha = edge_softmax(F.leaky_relu(alpha, self.negative_slope), dst, num_nodes)
        alpha = F.dropout(alpha, p=self.dropout, training=self.training)
        out = scatter_sum(self.message(h[src], alpha), dst, num_nodes)
        return out.flatten(1) if self.concat else out.mean(dim=1)


class GAT(nn.Module):
    def __init__(self, in_dim=6, hidden=8, num_classes=3, heads=2):
        super().__init__()
        self.convs = nn.ModuleList([GATConv(in_dim, hidden, heads), GATConv(hidden * heads, num_classes, 1, concat=False)])

    def forward(self, x, edge_index):
        for i, conv in enumerate(self.convs):
            x = conv(x, edge_index)
            if i < len(self.convs) - 1:
                x = F.elu(x)
        return F.log_softmax(x, dim=-1)


CASES = [
    ("GAT", GAT, lambda: (torch.randn(5, 6), torch.tensor([[0, 1, 2, 3, 4, 0], [1, 2, 3, 4, 0, 2]]))),
]
