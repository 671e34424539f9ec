"""Token pruning that keeps a fixed ratio of the most attended tokens (DynamicViT-style)."""
import torch
import torch.nn as nn


class TokenPruner(nn.Module):
    def __init__(self, dim=16, keep_ratio=0.5, min_tokens=2):
        super().__init__()
        self.keep_ratio = keep_ratio
        self.min_tokens = min_tokens
        self.score = nn.Linear(dim, 1)

    def forward(self, tokens):
        n = tokens.shape[1]
        keep = max(self.min_tokens, int(n * self.keep_ratio))
        keep = min(keep, n)
        scores = self.score(tokens).squeeze(-1)
        idx = scores.topk(keep, dim=1).indices.sort(dim=1).values
        kept = torch.gather(tokens, 1, idx.unsqueeze(-1).expand(-1, -1, tokens.shape[-1]))
        return kept, round(keep / n, 3)


CASES = [("TokenPruner", TokenPruner, lambda: (torch.randn(2, 9, 16),))]
