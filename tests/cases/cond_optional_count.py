"""A non-tensor input defaulting to None (`num_nodes: Optional[int] = None`) tested in a helper
of another file (`if num_nodes is not None: return num_nodes`, then `int(edge_index.max())`):
the break after it happens when the input is left out. The cases are named by the call
(`-given`, `-none`)."""
from typing import Optional

import torch
import torch.nn as nn

from .trn_common import maybe_num_nodes


class NodeDegrees(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 1)

    def forward(self, x, edge_index, num_nodes: Optional[int] = None):
        n = maybe_num_nodes(edge_index, num_nodes)
        weights = self.proj(x).squeeze(-1)
        return torch.zeros(n).index_add(0, edge_index[1], weights[edge_index[0]])


class GivenOnly(nn.Module):
    """Near miss: a helper default of None the root always fills: no test of the input."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 1)

    def forward(self, x, edge_index):
        n = maybe_num_nodes(edge_index, x.size(0))
        weights = self.proj(x).squeeze(-1)
        return torch.zeros(n).index_add(0, edge_index[1], weights[edge_index[0]])


EDGES = torch.tensor([[0, 1, 1, 2, 3], [1, 0, 2, 1, 4]])

CASES = [
    ("NodeDegrees-given", NodeDegrees, lambda: (torch.randn(5, 4), EDGES, 5)),
    ("NodeDegrees-none", NodeDegrees, lambda: (torch.randn(5, 4), EDGES)),
    ("GivenOnly-given", GivenOnly, lambda: (torch.randn(5, 4), EDGES)),
]
