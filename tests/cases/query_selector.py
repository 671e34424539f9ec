"""Multi-task decoder that keeps only the confident queries of each task head."""
import torch
import torch.nn as nn


class QueryHead(nn.Module):
    def __init__(self, dim, classes):
        super().__init__()
        self.cls = nn.Linear(dim, classes)

    def forward(self, queries):
        return self.cls(queries)


class MultiTaskSelector(nn.Module):
    def __init__(self, dim=16, tasks=(("det", 5), ("seg", 3)), threshold=0.5):
        super().__init__()
        self.threshold = threshold
        self.heads = nn.ModuleDict({name: QueryHead(dim, n) for name, n in tasks})

    def forward(self, queries):
        selected = {}
        for name, head in self.heads.items():
            scores = head(queries).sigmoid().amax(-1)
            keep = torch.nonzero(scores[0] > self.threshold).squeeze(-1)
            selected[name] = queries[0].index_select(0, keep)
        return selected


CASES = [("MultiTaskSelector", MultiTaskSelector, lambda: (torch.randn(1, 10, 16),))]
