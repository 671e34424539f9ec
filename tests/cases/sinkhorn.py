"""Entropic optimal transport (Sinkhorn-Knopp) used for balanced cluster assignment (SwAV)."""
import torch
import torch.nn as nn


class SinkhornAssigner(nn.Module):
    def __init__(self, dim=16, prototypes=6, epsilon=0.05, max_iters=20, tol=1e-4):
        super().__init__()
        self.prototypes = nn.Linear(dim, prototypes, bias=False)
        self.epsilon = epsilon
        self.max_iters = max_iters
        self.tol = tol

    @torch.no_grad()
    def sinkhorn(self, scores):
        q = torch.exp(scores / self.epsilon).t()
        q = q / q.sum()
        k, b = q.shape
        r = torch.ones(k) / k
        c = torch.ones(b) / b
        u = torch.zeros(k)
        it = 0
        while it < self.max_iters:
            row = q.sum(1)
            if (row - u).abs().max() < self.tol:
                break
            u = row
            q = q * (r / row).unsqueeze(1)
            q = q * (c / q.sum(0)).unsqueeze(0)
            it += 1
        return (q / q.sum(0, keepdim=True)).t()

    def forward(self, z):
        scores = self.prototypes(nn.functional.normalize(z, dim=-1))
        return self.sinkhorn(scores), scores


CASES = [("SinkhornAssigner", SinkhornAssigner, lambda: (torch.randn(8, 16),))]
